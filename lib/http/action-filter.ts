import type { Context } from "hono";
import { recordsMatching } from "../lists/list-in-memory";
import { readListQuery } from "../lists/list-query";
import { badRequest } from "../errors";
import { readJsonObject } from "./json-body";

/**
 * An action's filter (`X-Action: delete|update|upsert`): the body's, else the URL's `?filter=`
 * (as `find` reads it). A filter sent in the URL must never be taken for "no filter", which
 * deletes every record. Answers the body too, for the action's other fields (`keys`, besides
 * `filter`).
 *
 * Anything else that looks like a criterion is refused (400), never ignored: ignored, it left
 * "no filter", and the action took the whole collection. So are keys the action does not take
 * (`{"_id": {"$in": [...]}}` without its `filter`, a misspelt `filters`) and `text`, which
 * selects for `find` only.
 */
export async function readActionBody(c: Context, keys: readonly string[] = []): Promise<{ filter: Record<string, unknown> | undefined; body: Record<string, unknown> }> {
  const body = await readJsonObject(c);
  const params = new URL(c.req.url).searchParams;
  if (body.text !== undefined || params.has("text")) throw badRequest("text selects documents for X-Action: find only; select with filter here");
  const allowed = ["filter", ...keys];
  const unknown = Object.keys(body).find((key) => !allowed.includes(key));
  if (unknown !== undefined)
    throw badRequest(`${JSON.stringify(unknown)} is not taken here: the body holds ${allowed.map((k) => `"${k}"`).join(" and ")} (criteria go under "filter")`);
  return { filter: readListQuery(params, body).filter, body };
}

/**
 * A filter reads: the count a bulk action answers tells how many records match it, so a
 * principal that may update or delete but not read gets no filter (a one-character-at-a-time
 * `$regex` would read any value). Without one the action takes every record, as it says. The
 * same rule on every collection, system ones included (CONTRACT §3).
 */
export function filterReads(filter: Record<string, unknown> | undefined, allowRead: () => void): void {
  if (filter && Object.keys(filter).length > 0) allowRead();
}

/**
 * Delete by criteria over records held in memory (`_tokens`, `_users`): the records the action's
 * filter selects go to `remove` (which may refuse them all first), answered `{"deleted": n}`.
 */
export async function deleteMatching<T extends Record<string, unknown>>(c: Context, records: T[], remove: (matching: T[]) => Promise<void>, allowRead: () => void): Promise<Response> {
  const { filter } = await readActionBody(c);
  filterReads(filter, allowRead);
  const matching = recordsMatching(records, filter);
  await remove(matching);
  return c.json({ deleted: matching.length });
}
