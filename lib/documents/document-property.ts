import { conflict, notFound, validationError } from "../errors";
import type { ProjectScope } from "../collections/collection";
import { checkJsonInput, checkPropertyPath, MAX_ARRAY_INDEX, padsPastLimit, setOwn } from "../query/json-input";
import { isFileRecordShape } from "../files/file-record";
import { mergePatch } from "./merge-patch";
import { shallowPatch, type PatchMode } from "./patch-document";
import { updateDocument } from "./update-document";

type Doc = Record<string, unknown>;

/**
 * Property paths (`.../documents/<id>/<a>/<b>/`): read, write (PUT, POST, PATCH) and unset (DELETE) one value.
 * Segments walk objects by name and arrays by index. 404 "Document property not found." for a
 * path that reaches nothing.
 */
export function readProperty(doc: Doc, path: string[]): unknown {
  checkPropertyPath(path);
  let value: unknown = doc;
  for (const segment of path) {
    if (Array.isArray(value) && /^\d+$/.test(segment) && Number(segment) < value.length) value = value[Number(segment)];
    else if (value && typeof value === "object" && !Array.isArray(value) && Object.hasOwn(value, segment)) value = (value as Doc)[segment];
    else throw notFound("Document property not found.");
  }
  return value;
}

/**
 * How a write on a property path treats what is there: `set` (PUT) stores the value, 201 when the
 * property was absent and 200 when replaced; `create` (POST) only when absent (409 otherwise);
 * `patch` (PATCH) only when present (404 otherwise), applying the body to the stored value as a
 * PATCH applies to a document (`shallow`: an object's named keys replace its own; `merge`: RFC
 * 7396) and replacing a value that is not an object.
 */
export type PropertyWrite = { kind: "set" } | { kind: "create" } | { kind: "patch"; mode: PatchMode };

/** Writes one property: answers its value as stored (after processors) and whether it was absent (`created`). */
export async function setDocumentProperty(
  scope: ProjectScope,
  input: { collectionId: string; id: string; path: string[]; value: unknown; write?: PropertyWrite },
): Promise<{ value: unknown; created: boolean }> {
  checkPropertyPath(input.path);
  const write = input.write ?? { kind: "set" };
  if (input.path[0] === "_id") throw validationError("Validation error", [{ property: "_id", message: "cannot be changed" }]);
  let created = false;
  let written: unknown = input.value;
  const stored = await updateDocument(scope, {
    collectionId: input.collectionId,
    id: input.id,
    change: (doc) => {
      checkOutsideFileRecords(doc, input.path);
      created = !hasProperty(doc, input.path);
      if (write.kind === "create" && !created) throw conflict("Document property already exists.");
      if (write.kind === "patch") {
        if (created) throw notFound("Document property not found.");
        written = patchValue(readProperty(doc, input.path), input.value, write.mode);
      }
      // The value was checked as a body (64 levels); where it lands adds the path's levels.
      checkJsonInput(written, "The updated document", input.path.length);
      // Own properties only, and every step an own data property: a segment such as
      // `constructor` is a key like any other, never a way into a prototype.
      let node: Doc | unknown[] = doc;
      input.path.forEach((segment, i) => {
        const index = arrayIndex(node, segment, input.path.slice(0, i + 1));
        if (i === input.path.length - 1) {
          if (index !== undefined) (node as unknown[])[index] = written;
          else setOwn(node as Doc, segment, written);
          return;
        }
        const next = index !== undefined ? (node as unknown[])[index] : Object.hasOwn(node, segment) ? (node as Doc)[segment] : undefined;
        if (next !== null && typeof next === "object") {
          node = next as Doc | unknown[];
          return;
        }
        // A value is there that holds no properties: writing inside it would replace it whole
        // (MongoDB's "Cannot create field"), so it is refused; only an absent step is made.
        if (next !== undefined) throw validationError("Validation error", [{ property: input.path.slice(0, i + 1).join("."), message: `holds ${next === null ? "null" : `a ${typeof next}`}: nothing can be set inside it` }]);
        const made: Doc = {};
        if (index !== undefined) (node as unknown[])[index] = made;
        else setOwn(node as Doc, segment, made);
        node = made;
      });
      return doc;
    },
  });
  return { value: hasProperty(stored, input.path) ? readProperty(stored, input.path) : written, created };
}

/** An array is walked by index only: a name on an array would be a key JSON cannot keep (422). */
function arrayIndex(node: Doc | unknown[], segment: string, at: string[]): number | undefined {
  if (!Array.isArray(node)) return undefined;
  if (!/^\d+$/.test(segment)) throw validationError("Validation error", [{ property: at.join("."), message: "an array element is named by its index (0, 1, ...)" }]);
  if (padsPastLimit(node, Number(segment))) throw validationError("Validation error", [{ property: at.join("."), message: `an array index is at most ${MAX_ARRAY_INDEX}` }]);
  return Number(segment);
}

function patchValue(current: unknown, patch: unknown, mode: PatchMode): unknown {
  if (mode === "merge") return mergePatch(current, patch);
  return isObject(current) && isObject(patch) ? shallowPatch(current, patch) : patch;
}

function isObject(value: unknown): value is Doc {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * A file record is the `_files` record, the same wherever it is read (seed): a path inside one
 * (`photo/name/`) is refused, since the record changes only by uploading again.
 */
export function checkOutsideFileRecords(doc: Doc, path: string[]): void {
  for (let depth = 1; depth < path.length; depth++) {
    const prefix = path.slice(0, depth);
    if (hasProperty(doc, prefix) && isFileRecordShape(readProperty(doc, prefix)))
      throw validationError("Validation error", [{ property: prefix.join("."), message: "holds a file: its record changes only by uploading" }]);
  }
}

function hasProperty(doc: Doc, path: string[]): boolean {
  try {
    readProperty(doc, path);
    return true;
  } catch {
    return false;
  }
}

export async function unsetDocumentProperty(scope: ProjectScope, input: { collectionId: string; id: string; path: string[] }): Promise<Doc> {
  checkPropertyPath(input.path);
  if (input.path[0] === "_id") throw validationError("Validation error", [{ property: "_id", message: "cannot be removed" }]);
  return updateDocument(scope, {
    collectionId: input.collectionId,
    id: input.id,
    change: (doc) => {
      checkOutsideFileRecords(doc, input.path);
      readProperty(doc, input.path);
      const parent = input.path.length > 1 ? readProperty(doc, input.path.slice(0, -1)) : doc;
      const last = input.path[input.path.length - 1];
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete (parent as Doc)[last];
      return doc;
    },
  });
}
