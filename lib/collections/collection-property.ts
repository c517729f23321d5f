import { conflict, notFound, validationError } from "../errors";
import { mergePatch } from "../documents/merge-patch";
import { checkPropertyPath, setOwn } from "../query/json-input";
import type { CollectionView } from "./collection";
import { getCollection } from "./get-collection";
import { saveCollection } from "./save-collection";

type Node = Record<string, unknown> | unknown[];

/** The parts of a definition a property path may change; the others are the server's. */
const EDITABLE = new Set(["name", "description", "schema", "indexes"]);

/**
 * Property paths of a collection definition (CONTRACT §4), any depth:
 * `/api/collections/<c>/schema/properties/<name>/`. Read, set (PUT: `created` when it was
 * absent), merge (PATCH, RFC 7396 like the definition's own PATCH) and unset (DELETE). Each write
 * goes through saveCollection, so the new definition is validated (422) and indexes follow.
 */
export async function readCollectionProperty(projectId: string, id: string, path: string[], view: <T>(collection: T) => T = (c) => c): Promise<unknown> {
  checkPropertyPath(path);
  const found = lookUp(view((await getCollection(projectId, id)) as unknown as Record<string, unknown>), path);
  if (!found.exists) throw missing();
  return found.value;
}

/** PUT sets (`created` when absent); POST (`createOnly`) creates only: 409 when the property exists. */
export async function setCollectionProperty(
  projectId: string,
  input: { id: string; path: string[]; value: unknown; createOnly?: boolean },
): Promise<{ value: unknown; created: boolean }> {
  let created = false;
  const collection = await editDefinition(projectId, input.id, input.path, (definition) => {
    created = !lookUp(definition, input.path).exists;
    if (input.createOnly && !created) throw conflict("Collection property already exists.");
    assign(definition, input.path, input.value);
  });
  return { value: lookUp(asRecord(collection), input.path).value, created };
}

export async function patchCollectionProperty(projectId: string, input: { id: string; path: string[]; patch: unknown }): Promise<unknown> {
  const collection = await editDefinition(projectId, input.id, input.path, (definition) => {
    const found = lookUp(definition, input.path);
    if (!found.exists) throw missing();
    assign(definition, input.path, mergePatch(found.value, input.patch));
  });
  return lookUp(asRecord(collection), input.path).value;
}

export async function unsetCollectionProperty(projectId: string, input: { id: string; path: string[] }): Promise<void> {
  await editDefinition(projectId, input.id, input.path, (definition) => {
    if (!lookUp(definition, input.path).exists) throw missing();
    const parent = lookUp(definition, input.path.slice(0, -1)).value as Node;
    const last = input.path[input.path.length - 1];
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  });
}

async function editDefinition(projectId: string, id: string, path: string[], edit: (definition: Record<string, unknown>) => void): Promise<CollectionView> {
  checkPropertyPath(path);
  if (path.length === 0 || !EDITABLE.has(path[0]))
    throw validationError("Validation error", [{ property: path.join(".") || "_id", message: "cannot be changed" }]);
  const { collection } = await saveCollection(projectId, {
    id,
    body: {},
    mode: "edit",
    edit: (definition) => {
      edit(definition);
      return definition;
    },
  });
  return collection;
}

/** Walks own properties and array indexes only; `exists` tells a stored `null` from nothing. */
function lookUp(root: Record<string, unknown>, path: string[]): { exists: boolean; value: unknown } {
  let value: unknown = root;
  for (const segment of path) {
    if (Array.isArray(value) && /^\d+$/.test(segment) && Number(segment) < value.length) value = value[Number(segment)];
    else if (value && typeof value === "object" && !Array.isArray(value) && Object.hasOwn(value, segment)) value = (value as Record<string, unknown>)[segment];
    else return { exists: false, value: undefined };
  }
  return { exists: true, value };
}

/** Sets the value at `path`, making objects on the way (an array index past the end appends). */
function assign(root: Record<string, unknown>, path: string[], value: unknown): void {
  let node: Node = root;
  for (const [i, segment] of path.entries()) {
    const last = i === path.length - 1;
    if (Array.isArray(node)) {
      if (!/^\d+$/.test(segment) || Number(segment) > node.length) throw missing();
      if (last) node[Number(segment)] = value;
      else {
        const list: unknown[] = node;
        node = child(() => list[Number(segment)], (v) => (list[Number(segment)] = v));
      }
    } else if (last) setOwn(node, segment, value);
    else {
      const parent: Record<string, unknown> = node;
      node = child(() => (Object.hasOwn(parent, segment) ? parent[segment] : undefined), (v) => setOwn(parent, segment, v));
    }
  }
}

/** The object or array under a key, or a new object put there. */
function child(get: () => unknown, set: (value: Node) => void): Node {
  const current = get();
  if (current !== null && typeof current === "object") return current as Node;
  const created: Record<string, unknown> = {};
  set(created);
  return created;
}

function asRecord(collection: CollectionView): Record<string, unknown> {
  return collection as unknown as Record<string, unknown>;
}

function missing() {
  return notFound("Collection property not found.");
}
