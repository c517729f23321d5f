import { update } from "mingo/updater";
import { badRequest } from "@/lib/errors";
import { checkJsonInput, checkPropertyName, MAX_ARRAY_INDEX, padsPastLimit, setOwn } from "./json-input";
import { canonicalJson, deepEqual, isPlainObject } from "./json-values";
import { matchFilter } from "./match-filter";
import { parseFilter } from "./parse-filter";
import type { Json } from "./types";

const operators = new Set(["$set", "$unset", "$inc", "$mul", "$min", "$max", "$push", "$pull", "$addToSet", "$rename"]);

type Doc = { [key: string]: Json };

/**
 * Applies MongoDB update operators to a copy of `doc`. mingo does the work; this guards the
 * edges it is lenient about (unknown shapes, arithmetic on non-numbers, `_id`) with 400s.
 */
export function applyUpdate(doc: Doc, operation: unknown): Doc {
  if (!isPlainObject(operation) || Object.keys(operation).length === 0) {
    throw badRequest("Update operation must be an object of update operators");
  }
  const modifier: Record<string, Record<string, Json>> = {};
  const padding = { left: MAX_ARRAY_INDEX };
  for (const [operator, fields] of Object.entries(operation)) {
    if (!operators.has(operator)) throw badRequest(`Unknown operator: ${operator}`);
    if (!isPlainObject(fields)) throw badRequest(`${operator} needs an object of fields`);
    modifier[operator] = {};
    for (const [path, value] of Object.entries(fields)) {
      checkPath(path);
      const touchesId = [path, operator === "$rename" ? value : ""].some((p) => p === "_id" || String(p).startsWith("_id."));
      if (touchesId) {
        // Clients often send the whole document back through $set: its own _id is a no-op.
        if (operator === "$set" && path === "_id" && deepEqual(value, doc._id ?? null)) continue;
        throw badRequest("Cannot change _id");
      }
      modifier[operator][path] = value;
      if (CREATING.has(operator)) checkCreatable(doc, path, padding);
      if (operator === "$rename" && typeof value === "string") checkCreatable(doc, value, padding);
      if (operator === "$inc" || operator === "$mul") {
        if (typeof value !== "number" || !Number.isFinite(value)) throw badRequest(`${operator} needs numbers`);
        const current = valueAt(doc, path);
        if (current !== undefined && typeof current !== "number") {
          throw badRequest(`Cannot apply ${operator} to a non-numeric value at ${path}`);
        }
      }
      // MongoDB refuses these on a value that is not an array (mingo would skip it silently).
      if (operator === "$push" || operator === "$addToSet" || operator === "$pull") {
        const current = valueAt(doc, path);
        if (current !== undefined && !Array.isArray(current)) {
          throw badRequest(`Cannot apply ${operator} to a non-array value at ${path}`);
        }
      }
      if ((operator === "$push" || operator === "$addToSet") && isPlainObject(value)) checkModifiers(operator, path, value);
      if (operator === "$rename") {
        if (typeof value !== "string") throw badRequest("$rename needs the new name as a string");
        checkPath(value);
        // MongoDB refuses a rename into or out of an array element (mingo would do nothing and
        // the update would still count).
        for (const side of [path, value]) {
          const through = arrayOnPath(doc, side);
          if (through) throw badRequest(`Cannot $rename through an array at ${through}`);
        }
      }
    }
  }
  checkConflicts(modifier);
  // mingo keeps duplicates $addToSet should drop and drops values it should add once the array
  // holds a duplicate; each becomes the $set of the array MongoDB would make.
  // Members are compared by canonical JSON in a Set (JSONB equality: key order aside), not pair
  // by pair: 1,000 values into an array of 200,000 held every project's requests for 3 s.
  const emptyArrays: Record<string, Json> = {};
  if (modifier.$addToSet) {
    for (const [path, value] of Object.entries(modifier.$addToSet)) {
      const current = valueAt(doc, path);
      const set = Array.isArray(current) ? [...current] : [];
      const members = new Set(set.map(canonicalJson));
      const items = isPlainObject(value) && Object.hasOwn(value, "$each") ? (value.$each as Json[]) : [value];
      for (const item of items) {
        const key = canonicalJson(item);
        if (members.has(key)) continue;
        members.add(key);
        set.push(item);
      }
      (modifier.$set ??= {})[path] = set;
    }
    delete modifier.$addToSet;
  }
  if (modifier.$pull) applyPulls(doc, modifier);
  // mingo ignores $push's $sort, $slice and $position on a missing field: it gets its empty array first.
  for (const path of Object.keys(modifier.$push ?? {})) if (valueAt(doc, path) === undefined) emptyArrays[path] = [];
  // mingo walks paths with plain property reads, so a key such as `constructor` or `toString`
  // that the document lacks resolves to Object.prototype's member and the write is lost. Such
  // keys are renamed to a NUL-prefixed twin for the run (no input key holds NUL, see
  // json-input.ts) and back after: to mingo every user key is then an ordinary own property.
  const next = escapeKeys(doc) as Doc;
  try {
    if (Object.keys(emptyArrays).length > 0) update(next, escapeKeys({ $set: emptyArrays }) as Parameters<typeof update>[1], undefined, undefined, { cloneMode: "deep" });
    update(next, escapeKeys(modifier) as Parameters<typeof update>[1], undefined, undefined, { cloneMode: "deep" });
  } catch (error) {
    throw badRequest(`Invalid update: ${(error as Error).message}`);
  }
  const result = unescapeKeys(next) as Doc;
  // $inc/$mul past the double range give Infinity, which JSON stores as null: refused instead.
  checkJsonInput(result, "The updated document");
  return result;
}

/**
 * MongoDB refuses an update that names one path twice, or a path and a path inside it, across
 * its operators (`$rename`'s target included): the result would depend on their order.
 */
function checkConflicts(modifier: Record<string, Record<string, Json>>): void {
  const paths: string[] = [];
  for (const [operator, fields] of Object.entries(modifier)) {
    for (const [path, value] of Object.entries(fields)) paths.push(path, ...(operator === "$rename" ? [String(value)] : []));
  }
  // Linear in the number of path segments: an update may name many paths.
  const named = new Set<string>();
  for (const path of paths) {
    if (named.has(path)) throw badRequest(`Updating the path ${path} would create a conflict at ${path}`);
    named.add(path);
  }
  for (const path of paths) {
    for (let dot = path.indexOf("."); dot !== -1; dot = path.indexOf(".", dot + 1)) {
      const outer = path.slice(0, dot);
      if (named.has(outer)) throw badRequest(`Updating the path ${path} would create a conflict at ${outer}`);
    }
  }
}

const MODIFIERS: Record<string, Set<string>> = { $push: new Set(["$each", "$slice", "$sort", "$position"]), $addToSet: new Set(["$each"]) };

/** `$push`/`$addToSet` with modifiers (`{$each: [...], $slice: 2}`): MongoDB's set, and `$each` with them. */
function checkModifiers(operator: string, path: string, value: Record<string, unknown>): void {
  const modifiers = Object.keys(value).filter((key) => key.startsWith("$"));
  if (modifiers.length === 0) return;
  const unknown = modifiers.find((key) => !MODIFIERS[operator].has(key));
  if (unknown) throw badRequest(`Unknown modifier ${unknown} in ${operator} at ${path}`);
  if (!modifiers.includes("$each")) throw badRequest(`${operator} modifiers need $each at ${path}`);
  if (!Array.isArray(value.$each)) throw badRequest(`$each needs an array at ${path}`);
  // MongoDB's "Unrecognized clause": a field beside the modifiers was dropped silently.
  const field = Object.keys(value).find((key) => !key.startsWith("$"));
  if (field !== undefined) throw badRequest(`${operator} at ${path} mixes modifiers with the field ${JSON.stringify(field)}`);
  if ("$sort" in value && !isSortSpec(value.$sort)) throw badRequest(`$sort needs 1, -1 or an object of fields each 1 or -1 at ${path}`);
}

function isSortSpec(sort: unknown): boolean {
  const direction = (v: unknown) => v === 1 || v === -1;
  return direction(sort) || (isPlainObject(sort) && Object.keys(sort).length > 0 && Object.values(sort).every(direction));
}

/** The first proper prefix of `path` whose value in `doc` is an array, if any. */
function arrayOnPath(doc: Doc, path: string): string | undefined {
  const segments = path.split(".");
  let node: unknown = doc;
  for (let i = 0; i < segments.length - 1; i++) {
    node = node && typeof node === "object" && !Array.isArray(node) && Object.hasOwn(node, segments[i]) ? (node as Doc)[segments[i]] : undefined;
    if (Array.isArray(node)) return segments.slice(0, i + 1).join(".");
  }
  return undefined;
}

const inherited = new Set([...Object.getOwnPropertyNames(Object.prototype), "prototype"]);

function escapeKey(key: string): string {
  if (key.startsWith("$")) return key;
  const segments = key.split(".");
  return segments.some((s) => inherited.has(s) || s.startsWith("\u0000"))
    ? segments.map((s) => (inherited.has(s) || s.startsWith("\u0000") ? `\u0000${s}` : s)).join(".")
    : key;
}

/** A copy with every key (each segment of a dotted path, `$rename` targets too) escaped. */
function escapeKeys(value: unknown, renameTargets = false): unknown {
  if (Array.isArray(value)) return value.map((item) => escapeKeys(item));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    setOwn(out, escapeKey(key), renameTargets && typeof item === "string" ? escapeKey(item) : escapeKeys(item, key === "$rename"));
  }
  return out;
}

function unescapeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unescapeKeys);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) setOwn(out, key.startsWith("\u0000") ? key.slice(1) : key, unescapeKeys(item));
  return out;
}

/**
 * `$pull`, decided here for every path (mingo's differs from MongoDB's and lost data: `{"a": 2}`
 * also took out the number 2, `{}` emptied any array, `1` took out arrays holding 1), as the
 * `$set` of the array it leaves. MongoDB's three matchers (pull_node.cpp):
 * - a value that is no object (a scalar, an array): elements equal to it, exactly;
 * - an object whose first key is no operator (`{}` too): object elements matching it as a query;
 * - an object of operators: each element as the value of a field, matched as a query (so
 *   `{"$in": [[1, 2]]}` takes out the array `[1, 2]`, as a list's filter matches it).
 * `{"$in": [...]}` / `{"$nin": [...]}` alone over elements that are no arrays are decided by
 * canonical JSON in a Set (a 1,000-value `$in` over 200,000 elements held every project's
 * requests for a minute); the rest cost elements times the condition's size, bounded.
 */
function applyPulls(doc: Doc, modifier: Record<string, Record<string, Json>>): void {
  const pulls = modifier.$pull;
  delete modifier.$pull;
  for (const [path, condition] of Object.entries(pulls)) {
    const current = valueAt(doc, path);
    if (!Array.isArray(current)) continue; // missing: nothing to pull (a value that is no array was refused above)
    const pulled = pullMatcher(path, condition, current);
    (modifier.$set ??= {})[path] = current.filter((element) => !pulled(element));
  }
}

function pullMatcher(path: string, condition: Json, current: Json[]): (element: Json) => boolean {
  if (!isPlainObject(condition)) return (element) => deepEqual(element, condition);
  const keys = Object.keys(condition);
  const operators = keys.length > 0 && keys[0].startsWith("$");
  if (operators && keys.length === 1 && (keys[0] === "$in" || keys[0] === "$nin")) {
    const values = condition[keys[0]];
    const literal = (value: Json) => !isPlainObject(value) || Object.keys(value).every((key) => !key.startsWith("$"));
    if (Array.isArray(values) && values.every(literal) && !current.some(Array.isArray)) {
      const listed = new Set(values.map(canonicalJson));
      return (element) => listed.has(canonicalJson(element)) === (keys[0] === "$in");
    }
  }
  const parts = jsonSize(condition);
  if (current.length * parts > MAX_PULL_WORK)
    throw badRequest(`$pull at ${path} would compare ${current.length} elements with a condition of ${parts} parts: at most ${MAX_PULL_WORK} comparisons`);
  if (!operators) {
    const query = parseFilter(condition);
    return (element) => isPlainObject(element) && matchFilter(query, element);
  }
  const query = parseFilter({ element: condition });
  return (element) => matchFilter(query, { element });
}

/** Elements times condition parts one `$pull` may cost (~2,000,000: a fraction of a second). */
const MAX_PULL_WORK = 2_000_000;

/** The number of values in `value` (a scalar is 1, each array element and object member counts). */
function jsonSize(value: Json): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + jsonSize(item), 1);
  if (isPlainObject(value)) return Object.values(value).reduce((sum: number, item) => sum + jsonSize(item), 1);
  return 1;
}

/** Operators that write a value at their path (creating what is missing on the way). */
const CREATING = new Set(["$set", "$inc", "$mul", "$min", "$max", "$push", "$addToSet"]);

/**
 * MongoDB's "Cannot create field": a path that steps into an array by a name (`arr.x`, `arr.-1`)
 * or through a value that is neither object nor array (`s.x` on a string) cannot be written;
 * mingo would skip it silently and the update would count a change it never made.
 */
function checkCreatable(doc: Json, path: string, padding: { left: number }): void {
  let node: Json | undefined = doc;
  for (const segment of path.split(".")) {
    if (node === undefined) return;
    if (Array.isArray(node)) {
      if (!/^\d+$/.test(segment)) throw badRequest(`Cannot create field ${segment} in an array at ${path}`);
      if (padsPastLimit(node, Number(segment))) throw badRequest(`Cannot pad the array at ${path}: an array index is at most ${MAX_ARRAY_INDEX}`);
      // One update pads at most MAX_ARRAY_INDEX nulls in all: 40 paths of 100,000 each turned a
      // 600-byte update into a 20 MB document.
      padding.left -= Math.max(0, Number(segment) - node.length);
      if (padding.left < 0) throw badRequest(`Cannot pad arrays by more than ${MAX_ARRAY_INDEX} elements in one update`);
      node = node[Number(segment)];
    } else if (isPlainObject(node)) node = Object.hasOwn(node, segment) ? node[segment] : undefined;
    else throw badRequest(`Cannot create field ${segment} in a ${node === null ? "null" : typeof node} value at ${path}`);
  }
}

function checkPath(path: string): void {
  if (path === "" || path.split(".").some((segment) => segment === "" || segment.startsWith("$"))) {
    throw badRequest(`Invalid field path: ${JSON.stringify(path)}`);
  }
  for (const segment of path.split(".")) checkPropertyName(segment, "Update");
}

function valueAt(doc: Json, path: string): Json | undefined {
  let current: Json | undefined = doc;
  for (const segment of path.split(".")) {
    if (isPlainObject(current)) current = Object.hasOwn(current, segment) ? current[segment] : undefined;
    else if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)];
    else return undefined;
  }
  return current;
}
