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
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

function rewrite(filter: Record<string, unknown>, wanted: Set<string>, format: (date: Date) => string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filter)) {
    let next = value;
    if (LOGICAL.has(key) && Array.isArray(value)) next = value.map((branch) => (isPlainObject(branch) ? rewrite(branch as Record<string, unknown>, wanted, format) : branch));
    // `items.0.when` reaches the same property as `items.when`.
    else if (!key.startsWith("$") && wanted.has(key.split(".").filter((segment) => !/^\d+$/.test(segment)).join("."))) next = operand(value, format);
    Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function operand(value: unknown, format: (date: Date) => string): unknown {
  if (typeof value === "string") return instant(value, format);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [op, argument] of Object.entries(value as Record<string, unknown>)) {
    let next = argument;
    if (COMPARISONS.has(op) && typeof argument === "string") next = instant(argument, format);
    else if (LISTS.has(op) && Array.isArray(argument)) next = argument.map((item) => (typeof item === "string" ? instant(item, format) : item));
    else if (op === "$not") next = operand(argument, format);
    Object.defineProperty(out, op, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function instant(text: string, format: (date: Date) => string): string {
  if (!ISO_DATETIME.test(text)) return text;
  const date = new Date(text.replace(" ", "T"));
  return Number.isNaN(date.getTime()) ? text : format(date);
}
