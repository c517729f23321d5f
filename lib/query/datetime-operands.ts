import { isPlainObject } from "./json-values";

/**
 * Filters compare a datetime property's text. Each holds one stored form (`toISOString` in
 * documents, `YYYY-MM-DDThh:mm:ss.ffZ` in `_files`), and ISO 8601 text of one form sorts in time
 * order; another spelling of an instant does not (`…:04Z` sorts after `…:04.610Z`, `+01:00` is
 * compared as text). So a comparison at a datetime path takes its operand in the stored form:
 * `{"when": {"$gt": "2024-03-01T10:00:00+01:00"}}` compares with `"2024-03-01T09:00:00.000Z"`.
 * Works on the raw filter, before it is parsed; what is no datetime text is left as it is.
 */
export function withDatetimeOperands(filter: unknown, paths: readonly string[][], format: (date: Date) => string): unknown {
  if (!paths.length || !isPlainObject(filter)) return filter;
  const wanted = new Set(paths.map((path) => path.filter((segment) => segment !== "*").join(".")));
  return rewrite(filter as Record<string, unknown>, wanted, format);
}

const LOGICAL = new Set(["$and", "$or", "$nor"]);
const COMPARISONS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]);
const LISTS = new Set(["$in", "$nin", "$all"]);
/** ISO 8601 date or date-time text, as `datetime` properties take it (lib/documents/document-schema.ts). */
export const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Filter keys relative to `prefix` (the array an `$elemMatch` is in), array indexes left out. */
function rewrite(filter: Record<string, unknown>, wanted: Set<string>, format: (date: Date) => string, prefix = ""): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filter)) {
    let next = value;
    if (LOGICAL.has(key) && Array.isArray(value)) next = value.map((branch) => (isPlainObject(branch) ? rewrite(branch as Record<string, unknown>, wanted, format, prefix) : branch));
    else if (!key.startsWith("$")) {
      // `items.0.when` reaches the same property as `items.when`.
      const path = [...(prefix ? [prefix] : []), ...key.split(".").filter((segment) => !/^\d+$/.test(segment))].join(".");
      next = field(value, path, wanted, format);
    }
    setValue(out, key, next);
  }
  return out;
}

/** A field's condition at `path`: operands when it is a datetime, and `$elemMatch` inside it either way. */
function field(value: unknown, path: string, wanted: Set<string>, format: (date: Date) => string): unknown {
  const datetime = wanted.has(path);
  if (!isPlainObject(value)) return datetime ? operand(value, format) : value;
  const out: Record<string, unknown> = {};
  for (const [op, argument] of Object.entries(value as Record<string, unknown>)) {
    let next = argument;
    if (op === "$elemMatch") next = elemMatch(argument, path, wanted, format);
    else if (op === "$all" && Array.isArray(argument))
      next = argument.map((item) => (isPlainObject(item) && Object.hasOwn(item as object, "$elemMatch") ? { ...(item as object), $elemMatch: elemMatch((item as Record<string, unknown>).$elemMatch, path, wanted, format) } : datetime ? operand(item, format) : item));
    else if (op === "$not") next = field(argument, path, wanted, format);
    else if (datetime) next = (operand({ [op]: argument }, format) as Record<string, unknown>)[op];
    setValue(out, op, next);
  }
  return out;
}

/** `$elemMatch` on an array of datetimes takes operators; on an array of objects, a filter over them. */
function elemMatch(argument: unknown, path: string, wanted: Set<string>, format: (date: Date) => string): unknown {
  if (!isPlainObject(argument)) return argument;
  const operators = Object.keys(argument as object).every((key) => key.startsWith("$") && !LOGICAL.has(key));
  if (operators) return wanted.has(path) ? operand(argument, format) : argument;
  return rewrite(argument as Record<string, unknown>, wanted, format, path);
}

function operand(value: unknown, format: (date: Date) => string): unknown {
  if (typeof value === "string") return instant(value, format);
  // Equality with a whole array: each of its datetimes.
  if (Array.isArray(value)) return value.map((item) => (typeof item === "string" ? instant(item, format) : item));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [op, argument] of Object.entries(value as Record<string, unknown>)) {
    let next = argument;
    if (COMPARISONS.has(op)) next = operand(argument, format);
    else if (LISTS.has(op) && Array.isArray(argument)) next = argument.map((item) => (typeof item === "string" ? instant(item, format) : item));
    else if (op === "$not") next = operand(argument, format);
    setValue(out, op, next);
  }
  return out;
}

/** Keys come from requests: `__proto__` is an own key, never the prototype. */
function setValue(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

function instant(text: string, format: (date: Date) => string): string {
  if (!ISO_8601.test(text)) return text;
  const date = new Date(text.replace(" ", "T"));
  return Number.isNaN(date.getTime()) ? text : format(date);
}
