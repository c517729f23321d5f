import { validationError } from "../errors";
import type { Allow, PermissionEntry } from "./principal";

const ACTIONS = ["read", "write", "update", "delete"] as const;

/**
 * Normalises a token's permission as clients send it: the current `{ allow: {...} }` form, the
 * pre-2016-03-11 flat form (keys directly under `permission`), `create` as an alias of `write`.
 * Always returns the stored `allow` shape with every key present.
 */
export function normalizePermission(input: unknown): Allow {
  if (input === undefined || input === null) return { all: false, read: [], write: [], update: [], delete: [] };
  if (!isObject(input)) throw invalid("permission must be an object");
  const source = isObject(input.allow) ? input.allow : input.allow === undefined ? input : undefined;
  if (!source) throw invalid("permission.allow must be an object");
  // Beside `allow` nothing is read, so nothing may stand there: a grant sent is a grant kept.
  if (source !== input) {
    const beside = Object.keys(input).find((key) => key !== "allow");
    if (beside !== undefined)
      throw invalid(ACTIONS.includes(beside as never) || beside === "create" || beside === "all" ? `permission mixes the allow form and the flat form ("${beside}"): use one` : `Unknown permission "${beside}"`);
  }
  const allow: Allow = { all: false, read: [], write: [], update: [], delete: [] };
  if (source.all !== undefined) {
    if (typeof source.all !== "boolean") throw invalid("permission.allow.all must be a boolean");
    allow.all = source.all;
  }
  for (const [key, value] of Object.entries(source)) {
    if (key === "all") continue;
    const action = key === "create" ? "write" : key;
    if (!(ACTIONS as readonly string[]).includes(action)) throw invalid(`Unknown permission "${key}"`);
    if (!Array.isArray(value)) throw invalid(`permission.allow.${key} must be an array`);
    const list = allow[action as (typeof ACTIONS)[number]];
    for (const entry of value) list.push(parseEntry(entry, key));
  }
  return allow;
}

function parseEntry(entry: unknown, key: string): PermissionEntry {
  if (typeof entry === "string" && entry.length > 0) return entry;
  // Only these keys: a misspelled `what_id` would otherwise widen one document to its collection.
  if (isObject(entry) && Object.keys(entry).every((k) => k === "what" || k === "where" || k === "what_id")) {
    const { what, where, what_id } = entry;
    const named = (value: unknown) => typeof value === "string" && value.length > 0;
    if ((what === "collection" || what === "document") && (where === undefined || named(where)) && (what_id === undefined || named(what_id))) {
      // `what_id` names the one document, whatever `what` says; without it the element covers
      // the whole collection `where` (CONTRACT §9). Without `where`, as the original service
      // wrote them: `{what: "collection", what_id}` is that collection, `{what}` alone every
      // collection; a document without its collection names nothing.
      if (where !== undefined) return { what, where: where as string, ...(what_id === undefined ? {} : { what_id: what_id as string }) };
      if (what === "collection" || what_id === undefined) return { what, ...(what_id === undefined ? {} : { what_id: what_id as string }) };
    }
  }
  throw invalid(
    `permission.allow.${key} entries are collection names or {what: "document"|"collection", where, what_id?} (without where: {what} for every collection, {what: "collection", what_id: <collection>})`,
  );
}

/**
 * What an entry reaches: a collection (`"*"`: every one, system ones included, as if each were
 * named) and, for a per-document grant, the document.
 */
export function entryScope(entry: PermissionEntry): { collection: string; documentId?: string } {
  if (typeof entry === "string") return { collection: entry };
  if (entry.where !== undefined) return { collection: entry.where, documentId: entry.what_id };
  return { collection: entry.what_id ?? ANY_COLLECTION };
}

export const ANY_COLLECTION = "*";

function invalid(message: string) {
  return validationError("Validation error", [{ property: "permission", message }]);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Whether `holder` grants at least everything `wanted` does: a token that may write `_tokens`
 * makes or widens tokens only within its own rights (never `all`, never a collection it cannot
 * reach), so managing tokens is no way to more access.
 */
export function coversPermission(holder: Allow, wanted: Allow): boolean {
  if (holder.all) return true;
  if (wanted.all) return false;
  return ACTIONS.every((action) => wanted[action].every((entry) => coversEntry(holder[action], entry)));
}

function coversEntry(held: PermissionEntry[], entry: PermissionEntry): boolean {
  const wanted = entryScope(entry);
  return held.some((h) => {
    const holds = entryScope(h);
    if (holds.collection !== ANY_COLLECTION && holds.collection !== wanted.collection) return false;
    return holds.documentId === undefined || holds.documentId === wanted.documentId;
  });
}
