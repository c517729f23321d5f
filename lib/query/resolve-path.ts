import { isPlainObject } from "./json-values";
import type { Json } from "./types";

/** A segment that may index an array (`a.0`); longer ones could not address a real array. */
export function isArrayIndex(segment: string): boolean {
  return /^(0|[1-9][0-9]{0,8})$/.test(segment);
}

/**
 * The values a dotted path reaches, MongoDB style: a step into an array applies to each element
 * that is an object (one level; nested arrays are not entered), and a numeric step also indexes
 * the array itself. This is exactly what PostgreSQL's lax jsonpath `$."a"."b"` yields, plus the
 * array index, which the SQL compiler adds the same way.
 */
export function resolvePath(value: Json, path: readonly string[], from = 0): Json[] {
  if (from === path.length) return [value];
  const segment = path[from];
  if (isPlainObject(value)) {
    return Object.hasOwn(value, segment) ? resolvePath(value[segment], path, from + 1) : [];
  }
  if (!Array.isArray(value)) return [];
  const out: Json[] = [];
  for (const element of value) {
    if (isPlainObject(element) && Object.hasOwn(element, segment)) {
      out.push(...resolvePath(element[segment], path, from + 1));
    }
  }
  if (isArrayIndex(segment) && Number(segment) < value.length) {
    out.push(...resolvePath(value[Number(segment)], path, from + 1));
  }
  return out;
}
