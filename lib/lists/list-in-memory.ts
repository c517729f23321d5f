import { badRequest } from "../errors";
import { matchFilter } from "../query/match-filter";
import { parseFilter } from "../query/parse-filter";
import type { Json } from "../query/types";
type Doc = { [key: string]: Json };
import { projectDocument } from "../query/project-document";
import type { ListQuery, SortKey } from "./list-query";

/**
 * Lists a small set of records held in memory (a user's projects, a project's tokens, members):
 * the same filter language and answer as documents, evaluated by the in-memory matcher.
 * `textFields` are searched by `text` (every word must occur, case-insensitively).
 */
export function listInMemory<T extends Record<string, unknown>>(
  records: T[],
  query: ListQuery,
  textFields?: string[],
): { items: Record<string, unknown>[]; total: number } {
  let selected = records;
  if (query.filter) {
    const filter = parseFilter(query.filter);
    selected = selected.filter((record) => matchFilter(filter, record as Json));
  }
  if (query.text) {
    if (!textFields) throw badRequest("Collection has no text index");
    const words = query.text.toLowerCase().split(/\s+/);
    selected = selected.filter((record) => {
      const haystack = textFields.map((f) => String(record[f] ?? "")).join(" ").toLowerCase();
      return words.every((w) => haystack.includes(w));
    });
  }
  const sorted = [...selected].sort((a, b) => compareRecords(a, b, query.sort));
  const start = (query.page - 1) * query.perPage;
  const items = sorted
    .slice(start, start + query.perPage)
    .map((record) => projectDocument(record as Doc, { fields: query.fields, fields_exclude: query.fieldsExclude }));
  return { items, total: selected.length };
}

/** The records `filter` (a raw filter object; none: all) selects, for actions on in-memory collections. */
export function recordsMatching<T extends Record<string, unknown>>(records: T[], filter: Record<string, unknown> | undefined): T[] {
  if (!filter) return records;
  const node = parseFilter(filter);
  return records.filter((record) => matchFilter(node, record as Json));
}

/**
 * Total order (CONTRACT §3): after the requested keys, the record's identity (`_id`, or `id` for
 * `_hooks_history`) breaks every tie, so pages never repeat or skip a record whatever the caller
 * passed as `sort`.
 */
function compareRecords(a: Record<string, unknown>, b: Record<string, unknown>, keys: SortKey[]): number {
  for (const key of [...keys, IDENTITY, LEGACY_IDENTITY]) {
    const left = valueAt(a, key.path);
    const right = valueAt(b, key.path);
    const order = compareValues(left, right);
    if (order !== 0) return key.descending ? -order : order;
  }
  return 0;
}

const IDENTITY: SortKey = { path: ["_id"], descending: false };
const LEGACY_IDENTITY: SortKey = { path: ["id"], descending: false };

function valueAt(record: unknown, path: string[]): unknown {
  let value = record;
  for (const segment of path) value = value && typeof value === "object" && Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
  return value;
}

// Missing and null first, then numbers, strings, booleans, like jsonb ordering for the simple types.
function compareValues(a: unknown, b: unknown): number {
  const rank = (v: unknown) => (v === undefined || v === null ? 0 : typeof v === "string" ? 1 : typeof v === "number" ? 2 : typeof v === "boolean" ? 3 : 4);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  // By code point, as PostgreSQL's C.UTF-8 orders the SQL lists (UTF-8 bytes order the same way;
  // JavaScript's `<` compares UTF-16 units and puts U+FF21 after an emoji).
  if (ra === 1) return a === b ? 0 : Buffer.compare(Buffer.from(a as string), Buffer.from(b as string));
  if (ra === 2 || ra === 3) return Number(a) - Number(b);
  // Objects and arrays: by their JSON text, so equal-looking values still order the same way every time.
  const ja = JSON.stringify(a);
  const jb = JSON.stringify(b);
  return ja < jb ? -1 : ja > jb ? 1 : 0;
}
