import { badRequest } from "../errors";
import { checkJsonInput, checkJsonString, checkPropertyPath } from "../query/json-input";

/** A list request (CONTRACT §3): paging, sort, projection, filter and text, from URL and body. */
export interface ListQuery {
  page: number;
  perPage: number;
  sort: SortKey[];
  fields: string[] | undefined;
  fieldsExclude: string[] | undefined;
  /** The raw filter object, parsed by lib/query where the list is evaluated. */
  filter: Record<string, unknown> | undefined;
  text: string | undefined;
}

export interface SortKey {
  path: string[];
  descending: boolean;
}

export const DEFAULT_PER_PAGE = 100;
export const MAX_PER_PAGE = 1000;
/** Each key is an ORDER BY expression: 2,000 of them made the planner, not the client, wait. */
export const MAX_SORT_KEYS = 32;


/** Characters of a full-text search (`text`). */
export const MAX_TEXT_LENGTH = 10_000;

/**
 * `params` are the URL's query parameters; `body` the JSON body of `X-Action: find` (its
 * `filter` and `text` win over the URL's).
 */
export function readListQuery(params: URLSearchParams, body: Record<string, unknown> = {}): ListQuery {
  const page = positiveInt(params.get("page") ?? bodyNumber(body.page, "page"), 1, "page");
  // More than the maximum is served at the maximum, as PocketBase does: the answer's `per_page`
  // and links say what was used, and a client asking for "everything" still gets a page.
  const perPage = Math.min(positiveInt(params.get("per_page") ?? bodyNumber(body.per_page, "per_page"), DEFAULT_PER_PAGE, "per_page"), MAX_PER_PAGE);
  let filter: unknown = body.filter;
  if (filter === undefined && params.get("filter")) {
    try {
      filter = JSON.parse(params.get("filter")!);
    } catch {
      throw badRequest("Malformed JSON in filter");
    }
    checkJsonInput(filter, "Filter");
  }
  if (filter !== undefined && filter !== null && (typeof filter !== "object" || Array.isArray(filter)))
    throw badRequest("filter must be a JSON object");
  // MongoDB's `{"$search": ...}` is an easy mistake: ignored, it would answer every document.
  if (body.text !== undefined && body.text !== null && typeof body.text !== "string") throw badRequest("text must be a string");
  const text = typeof body.text === "string" ? body.text : (params.get("text") ?? undefined);
  if (text !== undefined) checkJsonString(text, "text");
  // A search is a few words: a megabyte of them was a tsquery PostgreSQL refuses (a 500).
  if (text !== undefined && text.length > MAX_TEXT_LENGTH) throw badRequest(`text takes at most ${MAX_TEXT_LENGTH} characters`);
  return {
    page,
    perPage,
    sort: parseSort(params.get("sort") ?? (typeof body.sort === "string" ? body.sort : "")),
    fields: listParam(params.get("fields") ?? (typeof body.fields === "string" ? body.fields : null)),
    fieldsExclude: listParam(params.get("fields_exclude") ?? (typeof body.fields_exclude === "string" ? body.fields_exclude : null)),
    filter: (filter ?? undefined) as Record<string, unknown> | undefined,
    text: text?.trim() ? text.trim() : undefined,
  };
}

/** `sort=_id,-name,a.b`; `_id` ends every sort so pages are stable. */
export function parseSort(text: string): SortKey[] {
  const keys: SortKey[] = [];
  for (const part of text.split(",").map((p) => p.trim()).filter(Boolean)) {
    const descending = part.startsWith("-");
    const name = descending || part.startsWith("+") ? part.slice(1) : part;
    const path = name.split(".");
    if (!name || path.some((segment) => segment === "")) throw badRequest(`Malformed sort key: ${part}`);
    checkPropertyPath(path, "sort");
    keys.push({ path, descending });
    if (keys.length > MAX_SORT_KEYS) throw badRequest(`sort takes at most ${MAX_SORT_KEYS} keys`);
  }
  if (!keys.some((k) => k.path.length === 1 && k.path[0] === "_id")) keys.push({ path: ["_id"], descending: false });
  return keys;
}

/** A `fields` / `fields_exclude` value: property paths, comma-separated (400 for a malformed one). */
export function listParam(value: string | null): string[] | undefined {
  if (value === null) return undefined;
  const list = value.split(",").map((v) => v.trim()).filter(Boolean);
  for (const item of list) {
    // As for sort keys: an empty segment (`a..b`, `.a`) names no property (it was ignored).
    if (item.split(".").some((segment) => segment === "")) throw badRequest(`Malformed field: ${item}`);
    checkPropertyPath(item.split("."), "fields");
  }
  return list.length ? list : undefined;
}

function positiveInt(value: string | null, fallback: number, name: string): number {
  if (value === null || value === "") return fallback;
  // Digits only: Number() also reads "0x10", "1e3" and " 7 ".
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw badRequest(`${name} must be a positive whole number`);
  return n;
}

/** `page`/`per_page` in a find body, as in the URL (the URL's win): a number or its digits. */
function bodyNumber(value: unknown, name: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "number" || typeof value === "string") return String(value);
  throw badRequest(`${name} must be a positive whole number`);
}
