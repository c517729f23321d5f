import { notFound, validationError } from "../errors";
import type { ProjectScope } from "../collections/collection";
import { updateDocument } from "./update-document";

type Doc = Record<string, unknown>;

/**
 * Property paths (`.../documents/<id>/<a>/<b>/`): read, set (PUT) and unset (DELETE) one value.
 * Segments walk objects by name and arrays by index. 404 "Document property not found." for a
 * path that reaches nothing.
 */
export function readProperty(doc: Doc, path: string[]): unknown {
  let value: unknown = doc;
  for (const segment of path) {
    if (Array.isArray(value) && /^\d+$/.test(segment) && Number(segment) < value.length) value = value[Number(segment)];
    else if (value && typeof value === "object" && !Array.isArray(value) && Object.hasOwn(value, segment)) value = (value as Doc)[segment];
    else throw notFound("Document property not found.");
  }
  return value;
}

export async function setDocumentProperty(scope: ProjectScope, input: { collectionId: string; id: string; path: string[]; value: unknown }): Promise<Doc> {
  if (input.path[0] === "_id") throw validationError("Validation error", [{ property: "_id", message: "cannot be changed" }]);
  return updateDocument(scope, {
    collectionId: input.collectionId,
    id: input.id,
    change: (doc) => {
      let node: unknown = doc;
      input.path.slice(0, -1).forEach((segment) => {
        const container = node as Record<string, unknown>;
        const next = Array.isArray(container) && /^\d+$/.test(segment) ? container[Number(segment)] : container[segment];
        if (next === null || typeof next !== "object") container[segment] = {};
        node = Array.isArray(container) && /^\d+$/.test(segment) ? container[Number(segment)] : container[segment];
      });
      const last = input.path[input.path.length - 1];
      if (Array.isArray(node) && /^\d+$/.test(last)) node[Number(last)] = input.value;
      else (node as Doc)[last] = input.value;
      return doc;
    },
  });
}

export async function unsetDocumentProperty(scope: ProjectScope, input: { collectionId: string; id: string; path: string[] }): Promise<Doc> {
  if (input.path[0] === "_id") throw validationError("Validation error", [{ property: "_id", message: "cannot be removed" }]);
  return updateDocument(scope, {
    collectionId: input.collectionId,
    id: input.id,
    change: (doc) => {
      readProperty(doc, input.path);
      const parent = input.path.length > 1 ? readProperty(doc, input.path.slice(0, -1)) : doc;
      const last = input.path[input.path.length - 1];
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete (parent as Doc)[last];
      return doc;
    },
  });
}
