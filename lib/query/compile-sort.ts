import { badRequest } from "@/lib/errors";
import { join, raw, sql, type Sql } from "@/lib/db/sql";
import { pathExpression } from "./compile-filter";
import { checkPropertyName } from "./json-input";

/** As lib/lists/list-query.ts: each key is an ORDER BY expression to plan. */
const MAX_SORT_KEYS = 32;

export interface SortKey {
  path: string[];
  descending: boolean;
}

/** `sort=_id,-name,a.b`: comma-separated dotted paths, `-` for descending; always ends on `_id`. */
export function parseSort(sortParam: string | null | undefined): SortKey[] {
  const keys: SortKey[] = [];
  for (const item of (sortParam ?? "").split(",")) {
    let name = item.trim();
    if (name === "") continue;
    const descending = name.startsWith("-");
    // `+name` arrives as " name" when a client forgets to encode the plus; both mean ascending.
    if (descending || name.startsWith("+")) name = name.slice(1);
    const path = name.split(".");
    if (path.some((segment) => segment === "")) throw badRequest(`Invalid sort key: ${JSON.stringify(item)}`);
    for (const segment of path) checkPropertyName(segment, "sort");
    if (keys.some((key) => key.path.join(".") === name)) continue;
    keys.push({ path, descending });
    if (keys.length > MAX_SORT_KEYS) throw badRequest(`sort takes at most ${MAX_SORT_KEYS} keys`);
  }
  // The unique `_id` makes the order total, so pages never overlap or skip.
  if (!keys.some((key) => key.path.length === 1 && key.path[0] === "_id")) keys.push({ path: ["_id"], descending: false });
  return keys;
}

/**
 * The ORDER BY list (without the keywords) over the JSONB `doc`. Keys use `pathExpression`, so a
 * btree index on a property serves its sort. Missing properties sort as the lowest values, as
 * MongoDB puts them; across types the order is JSONB's, not BSON's (see README).
 */
export function compileSort(sortParam: string | null | undefined, doc: Sql): Sql {
  return join(
    parseSort(sortParam).map(({ path, descending }) =>
      sql`${pathExpression(doc, path)} ${raw(descending ? "DESC NULLS LAST" : "ASC NULLS FIRST")}`,
    ),
  );
}
