/**
 * The visual filter builder's rows as the same MongoDB-style filter JSON the filter box takes
 * (CONTRACT §3): one condition per row, joined with AND.
 */
export const FILTER_OPERATORS = [
  { value: "$eq", label: "=" },
  { value: "$ne", label: "≠" },
  { value: "$gt", label: ">" },
  { value: "$gte", label: "≥" },
  { value: "$lt", label: "<" },
  { value: "$lte", label: "≤" },
  { value: "$in", label: "is one of" },
  { value: "$nin", label: "is none of" },
  { value: "$regex", label: "matches (regex, any case)" },
  { value: "$exists", label: "exists" },
] as const;

export type FilterOperator = (typeof FILTER_OPERATORS)[number]["value"];

export interface FilterRow {
  property: string;
  operator: FilterOperator;
  /** As typed: `1965`, `true`, `Dune`, `"1965"` (quoted: a string); a comma list for $in/$nin. */
  value: string;
}

/** A typed value as JSON when it is a number, boolean, null or a quoted string; else the text itself. */
export function literal(text: string): unknown {
  const trimmed = text.trim();
  if (/^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null|".*")$/.test(trimmed)) {
    try {
      return JSON.parse(trimmed);
    } catch {
      // Not JSON after all (e.g. a bad escape in quotes): the text.
    }
  }
  return trimmed;
}

function condition(row: FilterRow): unknown {
  switch (row.operator) {
    case "$eq":
      return literal(row.value);
    case "$in":
    case "$nin":
      return { [row.operator]: row.value.split(",").filter((part) => part.trim()).map(literal) };
    case "$exists":
      return { $exists: row.value.trim() !== "false" };
    case "$regex":
      return { $regex: row.value, $options: "i" };
    default:
      return { [row.operator]: literal(row.value) };
  }
}

/** Rows without a property are skipped; a property named twice goes into `$and`. */
export function buildFilter(rows: FilterRow[]): Record<string, unknown> {
  const complete = rows.filter((row) => row.property.trim());
  const properties = complete.map((row) => row.property.trim());
  if (new Set(properties).size === properties.length) return Object.fromEntries(complete.map((row) => [row.property.trim(), condition(row)]));
  return { $and: complete.map((row) => ({ [row.property.trim()]: condition(row) })) };
}
