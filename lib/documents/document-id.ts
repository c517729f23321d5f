import { generateId } from "../auth/secrets";
import { validationError } from "../errors";

/** Client-chosen document ids (CONTRACT §5); generated ones are 24 lowercase hex, time-ordered. */
export const DOCUMENT_ID = /^[A-Za-z0-9_.@-]{1,64}$/;

export function checkDocumentId(id: unknown): string {
  if (typeof id !== "string" || !DOCUMENT_ID.test(id))
    throw validationError("Validation error", [{ property: "_id", message: "must be 1-64 of A-Z a-z 0-9 _ . @ -" }]);
  // Ids become object keys in caches and maps built from rows: never the prototype's setter.
  if (id === "__proto__") throw validationError("Validation error", [{ property: "_id", message: "__proto__ is not allowed" }]);
  // `.` and `..` are dot-segments: in a path (`/documents/../`) they name the list or the
  // collection, so such a document could never be read, and deleting `..` deleted its collection.
  if (id === "." || id === "..") throw validationError("Validation error", [{ property: "_id", message: `"${id}" cannot be an id (a path dot-segment)` }]);
  return id;
}

/** The `_id` of a new document: the body's, the path's (they must agree), or a generated one. */
export function newDocumentId(bodyId: unknown, pathId?: string): string {
  if (pathId !== undefined) {
    checkDocumentId(pathId);
    if (bodyId !== undefined && bodyId !== pathId)
      throw validationError("Validation error", [{ property: "_id", message: "must match the id in the path" }]);
    return pathId;
  }
  return bodyId === undefined || bodyId === null ? generateId() : checkDocumentId(bodyId);
}
