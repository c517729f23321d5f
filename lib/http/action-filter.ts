import type { Context } from "hono";
import { recordsMatching } from "../lists/list-in-memory";
import { readListQuery } from "../lists/list-query";
import { readJsonObject } from "./json-body";

/**
 * An action's filter (`X-Action: delete|update|upsert`): the body's, else the URL's `?filter=`
 * (as `find` reads it). A filter sent in the URL must never be taken for "no filter", which
 * deletes every record. Answers the body too, for the action's other fields.
 */
export async function readActionBody(c: Context): Promise<{ filter: Record<string, unknown> | undefined; body: Record<string, unknown> }> {
  const body = await readJsonObject(c);
  return { filter: readListQuery(new URL(c.req.url).searchParams, body).filter, body };
}

/**
 * Delete by criteria over records held in memory (`_tokens`, `_users`): the records the action's
 * filter selects go to `remove` (which may refuse them all first), answered `{"deleted": n}`.
 */
export async function deleteMatching<T extends Record<string, unknown>>(c: Context, records: T[], remove: (matching: T[]) => Promise<void>): Promise<Response> {
  const { filter } = await readActionBody(c);
  const matching = recordsMatching(records, filter);
  await remove(matching);
  return c.json({ deleted: matching.length });
}
