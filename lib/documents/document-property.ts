import { notFound, validationError } from "../errors";
import type { ProjectScope } from "../collections/collection";
import { checkPropertyPath, setOwn } from "../query/json-input";
import { updateDocument } from "./update-document";

type Doc = Record<string, unknown>;

/**
 * Property paths (`.../documents/<id>/<a>/<b>/`): read, set (PUT) and unset (DELETE) one value.
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
 * PUT on a property path: answers the property's value as stored (after processors) and whether
 * it was absent before (`created`: 201) or replaced (200), as the original service did.
 */
export async function setDocumentProperty(
  scope: ProjectScope,
  input: { collectionId: string; id: string; path: string[]; value: unknown },
): Promise<{ value: unknown; created: boolean }> {
  checkPropertyPath(input.path);
  if (input.path[0] === "_id") throw validationError("Validation error", [{ property: "_id", message: "cannot be changed" }]);
  let created = false;
  const stored = await updateDocument(scope, {
    collectionId: input.collectionId,
    id: input.id,
    change: (doc) => {
      created = !hasProperty(doc, input.path);
      // Own properties only, and every step an own data property: a segment such as
      // `constructor` is a key like any other, never a way into a prototype.
      let node: Doc | unknown[] = doc;
      for (const segment of input.path.slice(0, -1)) {
        const index = Array.isArray(node) && /^\d+$/.test(segment) ? Number(segment) : undefined;
        const next = index !== undefined ? (node as unknown[])[index] : Object.hasOwn(node, segment) ? (node as Doc)[segment] : undefined;
        if (next !== null && typeof next === "object") {
          node = next as Doc | unknown[];
          continue;
        }
        const created: Doc = {};
        if (index !== undefined) (node as unknown[])[index] = created;
        else setOwn(node as Doc, segment, created);
        node = created;
      }
      const last = input.path[input.path.length - 1];
      if (Array.isArray(node) && /^\d+$/.test(last)) node[Number(last)] = input.value;
      else setOwn(node as Doc, last, input.value);
      return doc;
    },
  });
  return { value: hasProperty(stored, input.path) ? readProperty(stored, input.path) : input.value, created };
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
      readProperty(doc, input.path);
      const parent = input.path.length > 1 ? readProperty(doc, input.path.slice(0, -1)) : doc;
      const last = input.path[input.path.length - 1];
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete (parent as Doc)[last];
      return doc;
    },
  });
}
