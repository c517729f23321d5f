import type { Context } from "hono";
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
