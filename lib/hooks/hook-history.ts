import { createHash, randomBytes } from "node:crypto";
import { join, raw, sql, type Sql } from "../db/sql";
import { query, queryOne } from "../db/query";
import { notFound } from "../errors";
import type { ListQuery } from "../lists/list-query";
import { compileFilter, parseFilter, pathExpression } from "../query";
import { setOwn } from "../query/json-input";
import { projectDocument } from "../query/project-document";

/**
 * `_hooks_history` (CONTRACT §8): the delivery rows as records `{ id, hook_id, trigger,
 * collection, document_id, attempt, status, request, response, error, date_created }`, listed
 * with the same filter, sort and paging as documents (compiled to SQL over the record), read-only
 * and deletable. `status` is `retrying` while a delivery is queued (before its first attempt or
 * waiting for the next one). Ids are time-ordered UUIDs, so the default sort is chronological.
 */
const RECORD = raw(`jsonb_build_object(
  'id', d.id, 'hook_id', d.hook_id, 'trigger', d.trigger, 'collection', d.collection_id, 'document_id', d.document_id,
  'attempt', d.attempt, 'status', CASE d.state WHEN 'queued' THEN 'retrying' ELSE d.state END,
  'request', d.request, 'response', d.response, 'error', d.error,
  'date_created', to_char(d.date_created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`);

/** The project's history as rows `h(seq, id, data)`, `data` being the record. */
const historyOf = (projectId: string) => sql`(SELECT d.seq, d.id, ${RECORD} AS data FROM hook_deliveries d WHERE d.project_id = ${projectId}) h`;

export async function listHookHistory(projectId: string, list: ListQuery, hookId?: string, collections?: string[]): Promise<{ items: Record<string, unknown>[]; total: number }> {
  const record = raw("h.data");
  const conditions: Sql[] = [];
  if (list.filter) conditions.push(compileFilter(parseFilter(idAlias(list.filter)), record));
  if (hookId) conditions.push(sql`h.data->>'hook_id' = ${hookId}`);
  // Only deliveries of collections the reader may read: a record carries the document.
  if (collections) conditions.push(sql`h.data->>'collection' = ANY(${collections}::text[])`);
  const where = conditions.length ? sql`WHERE ${join(conditions, " AND ")}` : raw("");
  const order = join(
    list.sort.map(({ path, descending }) => {
      const key = path.length === 1 && (path[0] === "_id" || path[0] === "id") ? raw("h.id") : pathExpression(record, path);
      return sql`${key} ${raw(descending ? "DESC NULLS LAST" : "ASC NULLS FIRST")}`;
    }),
  );
  const rows = await query<{ data: Record<string, unknown>; total: number }>(
    sql`SELECT h.data, count(*) OVER () AS total FROM ${historyOf(projectId)} ${where}
        ORDER BY ${order} LIMIT ${list.perPage} OFFSET ${(list.page - 1) * list.perPage}`,
  );
  let total = rows[0]?.total;
  if (total === undefined) {
    const counted = await queryOne<{ n: number }>(
      sql`SELECT count(*) AS n FROM ${historyOf(projectId)} ${where}`,
    );
    total = counted?.n ?? 0;
  }
  const items = rows.map((r) =>
    list.fields || list.fieldsExclude ? projectRecord(r.data, list) : r.data,
  );
  return { items, total: Number(total) };
}

/**
 * `fields`/`fields_exclude` as on documents, with `id` (not `_id`) the identity key kept unless
 * excluded: in lists and single reads alike.
 */
export function projectRecord(record: Record<string, unknown>, list: Pick<ListQuery, "fields" | "fieldsExclude">): Record<string, unknown> {
  if (!list.fields && !list.fieldsExclude) return record;
  const projected = projectDocument(record as never, { fields: list.fields, fields_exclude: list.fieldsExclude }) as Record<string, unknown>;
  return list.fieldsExclude?.includes("id") ? projected : { id: record.id, ...projected };
}

export async function getHookHistoryRecord(projectId: string, id: string): Promise<Record<string, unknown>> {
  const row = await queryOne<{ data: Record<string, unknown> }>(
    sql`SELECT ${RECORD} AS data FROM hook_deliveries d WHERE d.project_id = ${projectId} AND d.id = ${id}`,
  );
  if (!row) throw notFound("Document not found.");
  return row.data;
}

export async function deleteHookHistoryRecord(projectId: string, id: string): Promise<void> {
  const rows = await query(sql`DELETE FROM hook_deliveries WHERE project_id = ${projectId} AND id = ${id} RETURNING 1`);
  if (!rows.length) throw notFound("Document not found.");
}

/** Delete by criteria (no filter: the whole history). Queued deliveries deleted are cancelled. */
/** `collections`: only records of these (those the caller may read whole, as its lists show); none: all. */
export async function deleteHookHistory(projectId: string, filter: Record<string, unknown> | undefined, collections?: string[]): Promise<number> {
  const record = raw("h.data");
  const where = filter ? sql`AND ${compileFilter(parseFilter(idAlias(filter)), record)}` : raw("");
  const visible = collections ? sql`AND h.data->>'collection' = ANY(${collections}::text[])` : raw("");
  const rows = await query(
    sql`DELETE FROM hook_deliveries x USING ${historyOf(projectId)} WHERE x.seq = h.seq ${where} ${visible} RETURNING 1`,
  );
  return rows.length;
}

/**
 * A record's identity is `id` (CONTRACT §8), but clients of the seed filter every collection by
 * `_id` (its delete body is `{"filter": {"_id": {"$in": [...]}}}`): in a filter, `_id` means `id`,
 * as it does in `sort`. Both named in one object must both hold.
 */
export function idAlias(filter: Record<string, unknown>): Record<string, unknown> {
  const logical = (value: unknown) => (Array.isArray(value) ? value.map((item) => (isObject(item) ? idAlias(item) : item)) : value);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" || key === "$or" || key === "$nor") setOwn(out, key, logical(value));
    else if (key !== "_id") setOwn(out, key, value);
  }
  if (!Object.hasOwn(filter, "_id")) return out;
  if (!Object.hasOwn(filter, "id")) return { ...out, id: filter._id };
  return { $and: [out, { id: filter._id }] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * A time-ordered UUID (version 7 layout: 48 bits of milliseconds, then random bits), the history
 * `id` and X-Hook-Operation-ID. With a `seed` the "random" bits are its hash, so dispatching the
 * same event to the same hook again (after a database crash lost the dispatch) gives the same id
 * and a receiver still recognises the duplicate.
 */
export function timeOrderedUuid(now = Date.now(), seed?: string): string {
  const bytes = seed === undefined ? randomBytes(16) : createHash("sha256").update(seed).digest().subarray(0, 16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
