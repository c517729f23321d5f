import { badRequest } from "@/lib/errors";
import { compileRegex } from "./compile-regex";
import { checkJsonInput, checkJsonString, checkPropertyName, setOwn } from "./json-input";
import { isPlainObject } from "./json-values";
import type { Comparable, FilterNode, Json, OperatorNode } from "./types";

/**
 * Parses a MongoDB-style filter once into a typed tree; the SQL compiler and the in-memory
 * matcher both walk that tree, so they can never disagree about what the client asked.
 * Every malformed piece is a 400 naming the operator.
 */
export function parseFilter(input: unknown): FilterNode {
  if (input === undefined || input === null) return { kind: "and", children: [] };
  if (!isPlainObject(input)) throw badRequest("filter must be a JSON object");
  checkJsonInput(input, "Filter");
  budget = fullBudget();
  return parseQuery(input as Record<string, unknown>);
}

/**
 * What one filter may cost before it runs: each condition is SQL to plan and a check per
 * document in memory, and each regex character is compiled (case closure, RE2, PostgreSQL)
 * on the event loop. A 16 MiB body of `$or` branches must not be a denial of service.
 */
export const MAX_FILTER_CONDITIONS = 1000;
export const MAX_FILTER_REGEX_CHARS = 5000;
/**
 * The patterns' size with counted repeats spelled out (`[a-z]{1,99}` is 99): RE2's compile takes
 * ~4 µs a unit on the event loop, so 2,500 is ~10 ms. Pattern-heavy filters of 5 x 1,000
 * characters had cost 80 ms each, and eight at once held other projects' reads for 0.6 s.
 */
export const MAX_FILTER_REGEX_SIZE = 2500;
/**
 * `$in`, `$nin` and `$all` values in one filter together: each is a bind parameter to send and a
 * comparison per document in memory. 200 lists of 1,000 held the event loop for 2.4 s.
 */
export const MAX_FILTER_VALUES = 10_000;
const fullBudget = () => ({ conditions: MAX_FILTER_CONDITIONS, regexChars: MAX_FILTER_REGEX_CHARS, regexSize: MAX_FILTER_REGEX_SIZE, values: MAX_FILTER_VALUES });
let budget = fullBudget();

function spend(conditions: number, regexChars = 0, regexSize = 0): void {
  budget.conditions -= conditions;
  budget.regexChars -= regexChars;
  budget.regexSize -= regexSize;
  if (budget.conditions < 0) throw badRequest(`Filter has too many conditions (at most ${MAX_FILTER_CONDITIONS})`);
  if (budget.regexChars < 0) throw badRequest(`Filter's $regex patterns are too long together (at most ${MAX_FILTER_REGEX_CHARS} characters)`);
  if (budget.regexSize < 0)
    throw badRequest(`Filter's $regex patterns are too complex together: counted repeats spelled out, at most ${MAX_FILTER_REGEX_SIZE} (\\d{1,99} is 99)`);
}

/** The `filter` query parameter: JSON text; empty means no filter. */
export function parseFilterParam(text: string | null | undefined): FilterNode {
  if (text === undefined || text === null || text.trim() === "") return parseFilter(undefined);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest("Malformed filter: not valid JSON");
  }
  checkJsonInput(value, "Filter");
  return parseFilter(value);
}

const logical = new Set(["$and", "$or", "$nor"]);

/** Each value is a parameter and an OR branch in SQL: 50,000 of them planned for seconds. */
export const MAX_IN_VALUES = 1000;

function parseQuery(query: Record<string, unknown>): FilterNode {
  const children: FilterNode[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (logical.has(key)) {
      if (!Array.isArray(value) || value.length === 0) throw badRequest(`${key} needs a non-empty array`);
      const parts = value.map((part) => {
        if (!isPlainObject(part)) throw badRequest(`${key} needs an array of filter objects`);
        return parseQuery(part as Record<string, unknown>);
      });
      children.push({ kind: key.slice(1) as "and" | "or" | "nor", children: parts });
    } else if (key.startsWith("$")) {
      throw badRequest(`Unknown operator: ${key}`);
    } else {
      spend(1);
      children.push({ kind: "field", path: parsePath(key), ops: parseCondition(value) });
    }
  }
  return children.length === 1 ? children[0] : { kind: "and", children };
}

function parsePath(key: string): string[] {
  checkString(key);
  const path = key.split(".");
  if (path.some((segment) => segment === "")) throw badRequest(`Invalid field path: ${JSON.stringify(key)}`);
  for (const segment of path) checkPropertyName(segment, "Filter");
  return path;
}

function isOperatorDocument(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  const keys = Object.keys(value);
  const operators = keys.filter((key) => key.startsWith("$"));
  if (operators.length > 0 && operators.length < keys.length) {
    throw badRequest(`Cannot mix operators and fields in one condition: ${keys.join(", ")}`);
  }
  return keys.length > 0 && operators.length === keys.length;
}

/** A field's condition: an operator document, or a bare value meaning `$eq`. */
function parseCondition(value: unknown): OperatorNode[] {
  if (isOperatorDocument(value)) return parseOperators(value);
  return [{ op: "eq", value: jsonValue(value) }];
}

function isOperatorObject(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).some((key) => key.startsWith("$"));
}

function parseOperators(doc: Record<string, unknown>): OperatorNode[] {
  const ops: OperatorNode[] = [];
  for (const [key, value] of Object.entries(doc)) {
    spend(1);
    switch (key) {
      case "$eq":
      case "$ne":
        ops.push({ op: key.slice(1) as "eq" | "ne", value: jsonValue(value) });
        break;
      case "$gt":
      case "$gte":
      case "$lt":
      case "$lte":
        ops.push({ op: key.slice(1) as "gt", value: comparable(key, value) });
        break;
      case "$in":
      case "$nin":
      case "$all":
        if (!Array.isArray(value)) throw badRequest(`${key} needs an array`);
        // MongoDB: `$all` of `$elemMatch` documents means every one matches some element.
        if (key === "$all" && value.some(isElemMatch)) {
          if (!value.every(isElemMatch)) throw badRequest("$all cannot mix $elemMatch with values");
          for (const element of value) ops.push(...parseOperators(element as Record<string, unknown>));
          break;
        }
        if (value.length > MAX_IN_VALUES) throw badRequest(`${key} takes at most ${MAX_IN_VALUES} values`);
        budget.values -= value.length;
        if (budget.values < 0) throw badRequest(`Filter has too many $in, $nin and $all values together (at most ${MAX_FILTER_VALUES})`);
        // As MongoDB: `{"$in": [{"$regex": "a"}]}` is no literal to compare with (it matched nothing, so `$nin` everything).
        if (value.some(isOperatorObject)) throw badRequest(`${key} takes values, not operators`);
        ops.push({ op: key.slice(1) as "in", values: value.map(jsonValue) });
        break;
      case "$exists":
        if (typeof value !== "boolean" && value !== 0 && value !== 1) throw badRequest("$exists needs true or false");
        ops.push({ op: "exists", value: Boolean(value) });
        break;
      case "$size":
        if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 2 ** 31 - 1) {
          throw badRequest("$size needs a non-negative integer");
        }
        ops.push({ op: "size", value });
        break;
      case "$regex": {
        const options = doc.$options ?? "";
        if (typeof value !== "string") throw badRequest("$regex needs a string");
        if (typeof options !== "string") throw badRequest("$options needs a string");
        checkString(value);
        spend(0, value.length);
        ops.push({ op: "regex", regex: compileRegex(value, options, (size) => spend(0, 0, size)) });
        break;
      }
      case "$options":
        if (!("$regex" in doc)) throw badRequest("$options needs $regex");
        break;
      case "$elemMatch":
        if (!isPlainObject(value)) throw badRequest("$elemMatch needs an object");
        if (isOperatorDocument(value) && !Object.keys(value).some((k) => logical.has(k))) {
          ops.push({ op: "elemMatchOps", ops: parseOperators(value) });
        } else {
          ops.push({ op: "elemMatch", filter: parseQuery(value as Record<string, unknown>) });
        }
        break;
      case "$not":
        if (!isOperatorDocument(value)) throw badRequest("$not needs an operator document");
        ops.push({ op: "not", ops: parseOperators(value) });
        break;
      default:
        throw badRequest(`Unknown operator: ${key}`);
    }
  }
  return ops;
}

function isElemMatch(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).length === 1 && "$elemMatch" in value;
}

function comparable(operator: string, value: unknown): Comparable {
  if (value === null || typeof value === "boolean" || typeof value === "string" || typeof value === "number") {
    return jsonValue(value) as Comparable;
  }
  throw badRequest(`${operator} needs a number, string, boolean or null`);
}

/** Checks a filter operand is plain JSON that JSONB can hold. */
function jsonValue(value: unknown): Json {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw badRequest("Filter numbers must be finite");
    return value;
  }
  if (typeof value === "string") return checkString(value);
  if (Array.isArray(value)) return value.map(jsonValue);
  if (isPlainObject(value)) {
    const out: Record<string, Json> = {};
    for (const [key, item] of Object.entries(value)) setOwn(out, checkString(key), jsonValue(item));
    return out;
  }
  throw badRequest("Filter values must be JSON");
}

function checkString(value: string): string {
  return checkJsonString(value, "Filter");
}
