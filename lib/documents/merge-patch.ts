import { setOwn } from "../query/json-input";

/**
 * JSON merge patch (RFC 7396): objects merge recursively, `null` removes, anything else replaces.
 * Keys are read and written as own properties only, so `constructor` is data like any other key
 * and no key can reach a prototype.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = {};
  if (isObject(target)) for (const key of Object.keys(target)) setOwn(result, key, target[key]);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setOwn(result, key, mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
