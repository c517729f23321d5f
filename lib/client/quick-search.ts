/**
 * The documents table's quick search, for collections without a text index (issue 14): a filter
 * the API already speaks, `$or` of case-insensitive `$regex` over the `_id` and the schema's
 * top-level string properties. It is a scan (no index serves a substring regex), so it stays
 * small: at most QUICK_SEARCH_FIELDS properties, in `position` order, and the typed text is
 * escaped, so it matches as typed (the server runs patterns on RE2, linear-time either way).
 */
export const QUICK_SEARCH_FIELDS = 8;

/** Regex metacharacters escaped: `a.b (c)` matches exactly that text. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The top-level string properties a quick search looks at (`_id` first), at most the limit. */
export function quickSearchFields(schema: Record<string, unknown> | null | undefined): string[] {
  const properties = schema?.properties;
  const fields = ["_id"];
  if (!properties || typeof properties !== "object" || Array.isArray(properties)) return fields;
  const entries = Object.entries(properties as Record<string, { type?: unknown; position?: unknown; enum?: unknown }>).filter(([name, p]) => {
    if (name === "_id" || !p || typeof p !== "object") return false;
    const type = Array.isArray(p.type) ? p.type.filter((t) => t !== "null") : [p.type];
    return type.length === 1 && type[0] === "string";
  });
  const position = (p: { position?: unknown }) => (typeof p.position === "number" ? p.position : Number.POSITIVE_INFINITY);
  entries.sort((a, b) => position(a[1]) - position(b[1]));
  return [...fields, ...entries.slice(0, QUICK_SEARCH_FIELDS).map(([name]) => name)];
}

/**
 * The filter for `text` over `fields`, joined with the table's own filter by `$and`; an empty
 * search leaves the filter as it is.
 */
export function quickSearchFilter(text: string, fields: string[], filter?: Record<string, unknown>): Record<string, unknown> | undefined {
  const words = text.trim();
  if (!words) return filter;
  const pattern = escapeRegex(words);
  const search = { $or: fields.map((field) => ({ [field]: { $regex: pattern, $options: "i" } })) };
  return filter && Object.keys(filter).length ? { $and: [filter, search] } : search;
}
