import { badRequest } from "@/lib/errors";

/**
 * The one check every JSON value from a request passes before anything walks it: bodies (documents,
 * filters, update operations, schemas), the `filter` parameter and multipart values.
 *
 * - Nesting: at most `MAX_JSON_DEPTH` arrays/objects deep. Deeper values were accepted before and
 *   then broke every recursive walk over the document (PATCH, `update`, `fields_exclude`).
 * - `__proto__` is refused as a key: assigned through `obj[key]` it swaps an object's prototype,
 *   and walked through it reaches `Object.prototype` (server-wide pollution). `constructor` and
 *   `prototype` stay ordinary keys: the walks use own-property checks.
 * - NUL and lone surrogates are refused in strings and keys: PostgreSQL text and JSONB cannot hold
 *   them, and finding out in the database was a 500.
 *
 * - Width: at most `MAX_OBJECT_KEYS` keys in one object. Past a few thousand keys V8 keeps an
 *   object as a hash table, and each of a write's passes over it (copy, checks, validation,
 *   serialization) costs ~1 µs a key on the server's thread: a document of 200,000 keys held
 *   every project's requests for a second on each write.
 *
 * Iterative, so a value nested 100,000 deep costs a loop and a 400, not a stack overflow.
 */
export const MAX_JSON_DEPTH = 64;
export const MAX_OBJECT_KEYS = 10_000;
/** The highest array index a write may pad an array to (one far past the end would add millions of nulls). */
export const MAX_ARRAY_INDEX = 100_000;

/** Whether writing `array[index]` would pad it past MAX_ARRAY_INDEX; elements that exist (and the next one) stay writable. */
export function padsPastLimit(array: readonly unknown[], index: number): boolean {
  return index > Math.max(MAX_ARRAY_INDEX, array.length);
}

export function checkJsonInput(value: unknown, what = "Request body", depth = 0): void {
  const stack: { value: unknown; depth: number }[] = [{ value, depth }];
  while (stack.length > 0) {
    const { value: item, depth } = stack.pop()!;
    if (typeof item === "string") {
      checkJsonString(item, what);
      continue;
    }
    // JSON.parse reads 1e400 as Infinity, which JSON (and JSONB) can only store as null.
    if (typeof item === "number" && !Number.isFinite(item)) throw badRequest(`${what} holds a number out of range`);
    if (typeof item !== "object" || item === null) continue;
    if (depth >= MAX_JSON_DEPTH) throw badRequest(`${what} is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`);
    if (Array.isArray(item)) {
      for (const element of item) stack.push({ value: element, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(item);
    if (keys.length > MAX_OBJECT_KEYS) throw badRequest(`${what} holds an object of more than ${MAX_OBJECT_KEYS} keys`);
    for (const key of keys) {
      checkPropertyName(key, what);
      stack.push({ value: (item as Record<string, unknown>)[key], depth: depth + 1 });
    }
  }
}

/**
 * `MAX_OBJECT_KEYS` on a document as a write will store it: merges (PATCH, merge patch, a
 * property path's PUT) can grow an object past the bound that each of their bodies kept.
 */
export function checkObjectWidths(value: unknown, what = "The document"): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== "object" || item === null) continue;
    if (Array.isArray(item)) {
      for (const element of item) if (typeof element === "object" && element !== null) stack.push(element);
      continue;
    }
    const values = Object.values(item);
    if (values.length > MAX_OBJECT_KEYS) throw badRequest(`${what} holds an object of more than ${MAX_OBJECT_KEYS} keys`);
    for (const child of values) if (typeof child === "object" && child !== null) stack.push(child);
  }
}

/** A property name or path segment a client chose: never `__proto__`, never NUL. */
export function checkPropertyName(name: string, what = "Request"): string {
  if (name === "__proto__") throw badRequest(`${what}: "__proto__" is not allowed as a property name`);
  checkJsonString(name, what);
  return name;
}

/** Every segment of a property path (dotted, bracketed or from a URL). */
export function checkPropertyPath(path: readonly string[], what = "Property path"): void {
  if (path.length > MAX_JSON_DEPTH) throw badRequest(`${what} is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`);
  for (const segment of path) checkPropertyName(segment, what);
}

// PostgreSQL text cannot hold NUL, and JSONB refuses lone surrogates.
const unstorable = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function checkJsonString(value: string, what = "Request"): string {
  if (unstorable.test(value)) throw badRequest(`${what} strings must be valid Unicode without NUL`);
  return value;
}

/**
 * Sets `key` on `target` as an own data property, whatever the key: unlike `target[key] = value`
 * it never invokes the `__proto__` setter. For merges and walks that build objects from input.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
