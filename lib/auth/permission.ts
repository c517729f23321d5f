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
  if (isObject(entry) && typeof entry.where === "string") {
    if (entry.what === "collection") return { what: "collection", where: entry.where };
    if (entry.what === "document" && typeof entry.what_id === "string")
      return { what: "document", where: entry.where, what_id: entry.what_id };
    // Without `what_id` the element covers the whole collection `where` (CONTRACT §9).
    if (entry.what === "document" && entry.what_id === undefined) return { what: "document", where: entry.where };
  }
  throw invalid(
    `permission.allow.${key} entries are collection names or {what: "document"|"collection", where, what_id?}`,
  );
}

function invalid(message: string) {
  return validationError("Validation error", [{ property: "permission", message }]);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
