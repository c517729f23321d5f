import type pg from "pg";
import { query, queryOne, transaction, type Queryable } from "../db/query";
import { sql } from "../db/sql";
import { conflict, notFound, validationError } from "../errors";
import { newDocumentId } from "../documents/document-id";
import { parseHook, type Hook } from "./hook";
import { queueDeliveriesBeforeHookChange, type StoredHook } from "./dispatch-hook-events";

/**
 * The project's hooks (`_hooks`): written like documents (create, save, patch, delete), each
 * write validated whole (lib/hooks/hook.ts). Deleting a hook drops its queued deliveries: they
 * are recorded as errors ("Hook was deleted") and never sent.
 */
export async function listHooks(projectId: string): Promise<Hook[]> {
  const rows = await query<{ data: Hook }>(sql`SELECT data FROM hooks WHERE project_id = ${projectId} ORDER BY id`);
  return rows.map((r) => r.data);
}

export async function getHook(projectId: string, id: string): Promise<Hook> {
  const row = await queryOne<{ data: Hook }>(sql`SELECT data FROM hooks WHERE project_id = ${projectId} AND id = ${id}`);
  if (!row) throw notFound("Document not found.");
  return row.data;
}

export async function hookExists(projectId: string, id: string): Promise<boolean> {
  return (await queryOne(sql`SELECT 1 FROM hooks WHERE project_id = ${projectId} AND id = ${id}`)) !== undefined;
}

/**
 * Checks, before a hook is written, that its writer may read the collection it watches (a hook
 * delivers that collection's documents), and, when the hook moves, the one it leaves (`from`):
 * the hook's secret and credential headers sign and open that collection's deliveries, and a
 * moved hook shows them to whoever may read its new collection. Throws to refuse.
 */
export type WatchCheck = (collection: string, role?: "from") => void;

/** Where deliveries go, or what they carry, changes: a change checked as a new hook would be. */
export function redirectsDeliveries(before: Pick<Hook, "collection" | "url">, after: { collection?: unknown; url?: unknown }): boolean {
  return after.collection !== before.collection || after.url !== before.url;
}

/** POST: a new hook (409 when the id is taken). */
export async function createHook(projectId: string, body: Record<string, unknown>, pathId?: string, mayWatch?: WatchCheck): Promise<Hook> {
  const hook = await parseHook(newDocumentId(body._id, pathId), body);
  mayWatch?.(hook.collection);
  const rows = await query<{ data: Hook }>(
    sql`INSERT INTO hooks (project_id, id, collection_id, is_active, data, matching_since)
        VALUES (${projectId}, ${hook._id}, ${hook.collection}, ${hook.is_active}, ${JSON.stringify(hook)}::jsonb, pg_current_snapshot())
        ON CONFLICT (project_id, id) DO NOTHING RETURNING data`,
  );
  if (!rows.length) throw conflict("Document with this _id already exists.");
  return rows[0].data;
}

/** PUT: the hook replaced by `body` (defaults for what it leaves out), or created. */
export async function saveHook(projectId: string, id: string, body: Record<string, unknown>, mayWatch?: WatchCheck): Promise<{ hook: Hook; created: boolean }> {
  const hook = await parseHook(newDocumentId(body._id, id), body);
  mayWatch?.(hook.collection);
  const row = await transaction(async (client) => {
    const before = await lockHook(client, projectId, id);
    if (before && before.data.collection !== hook.collection) mayWatch?.(before.data.collection, "from");
    const since = !before || changesMatching(before.data, hook) ? await beginMatching(client, projectId, before) : null;
    const [row] = await query<{ data: Hook; created: boolean }>(
      sql`INSERT INTO hooks (project_id, id, collection_id, is_active, data, matching_since)
          VALUES (${projectId}, ${id}, ${hook.collection}, ${hook.is_active}, ${JSON.stringify(hook)}::jsonb, ${since}::pg_snapshot)
          ON CONFLICT (project_id, id) DO UPDATE SET collection_id = EXCLUDED.collection_id, is_active = EXCLUDED.is_active,
            data = EXCLUDED.data, updated_at = now(), matching_since = coalesce(EXCLUDED.matching_since, hooks.matching_since)
          RETURNING data, (xmax = 0) AS created`,
      client,
    );
    if (!row.created) await endDeliveriesOfOtherCollections(projectId, hook, client);
    if (hook.is_active && !row.created) await wakeWorkersFor(projectId, id, client);
    return row;
  });
  return { hook: row.data, created: row.created };
}

/** Whether the change makes the hook match other events: active, collection, triggers or conditions. */
function changesMatching(before: Hook, after: Hook): boolean {
  return (
    before.is_active !== after.is_active ||
    before.collection !== after.collection ||
    JSON.stringify(before.conditions ?? null) !== JSON.stringify(after.conditions ?? null) ||
    [...before.triggers].sort().join() !== [...after.triggers].sort().join()
  );
}

async function lockHook(client: Queryable, projectId: string, id: string): Promise<StoredHook | undefined> {
  return queryOne<StoredHook>(sql`SELECT data, matching_since::text FROM hooks WHERE project_id = ${projectId} AND id = ${id} FOR UPDATE`, client);
}

/**
 * A hook matches a change as it was when the change committed. When its matching changes (or it
 * goes), the changes committed before (visible in one snapshot, taken here) that the dispatcher
 * has not read yet are queued for the version they belong to, `before`; the new version starts
 * at that snapshot (`matching_since`), and the dispatcher gives it only what committed after.
 * Answers the snapshot.
 */
async function beginMatching(client: Queryable, projectId: string, before: StoredHook | undefined): Promise<string> {
  const [{ snapshot }] = await query<{ snapshot: string }>(sql`SELECT pg_current_snapshot()::text AS snapshot`, client);
  if (before) await queueDeliveriesBeforeHookChange(client as pg.PoolClient, projectId, before, snapshot);
  return snapshot;
}

/**
 * A hook pointed at another collection ends the deliveries it still had queued for the old one
 * (as a delete does): its writer was checked for reading the new collection only, and those
 * documents would otherwise go to the hook's new URL.
 */
async function endDeliveriesOfOtherCollections(projectId: string, hook: Hook, client?: Queryable): Promise<void> {
  await query(
    sql`UPDATE hook_deliveries SET state = 'error', error = 'The hook now watches another collection', lease_until = NULL
        WHERE project_id = ${projectId} AND hook_id = ${hook._id} AND state = 'queued' AND collection_id <> ${hook.collection}`,
    client,
  );
}

/** PATCH: `body`'s top-level keys replace the stored ones; the result is validated whole. */
export async function patchHook(projectId: string, id: string, body: Record<string, unknown>, mayWatch?: WatchCheck): Promise<Hook> {
  return transaction(async (client) => {
    const row = await lockHook(client, projectId, id);
    if (!row) throw notFound("Document not found.");
    const { _id, ...changes } = body;
    // As a document's PATCH: the body may repeat the id, never change it.
    if (_id !== undefined && _id !== id) throw validationError("Validation error", [{ property: "_id", message: "cannot be changed" }]);
    const hook = await parseHook(id, changes, row.data);
    if (redirectsDeliveries(row.data, hook)) mayWatch?.(hook.collection);
    if (row.data.collection !== hook.collection) mayWatch?.(row.data.collection, "from");
    const since = changesMatching(row.data, hook) ? await beginMatching(client, projectId, row) : null;
    await query(
      sql`UPDATE hooks SET collection_id = ${hook.collection}, is_active = ${hook.is_active}, data = ${JSON.stringify(hook)}::jsonb, updated_at = now(),
            matching_since = coalesce(${since}::pg_snapshot, matching_since)
          WHERE project_id = ${projectId} AND id = ${id}`,
      client,
    );
    if (hook.collection !== row.data.collection) await endDeliveriesOfOtherCollections(projectId, hook, client);
    if (hook.is_active && !row.data.is_active) await wakeWorkersFor(projectId, id, client);
    return hook;
  });
}

/**
 * A hook made active again wakes the delivery workers (of every process, at commit) for the
 * deliveries it kept queued while inactive: nothing else would until their idle recheck.
 */
async function wakeWorkersFor(projectId: string, id: string, client?: Queryable): Promise<void> {
  await query(
    sql`SELECT pg_notify('arca_hooks', '') WHERE EXISTS
          (SELECT 1 FROM hook_deliveries WHERE project_id = ${projectId} AND hook_id = ${id} AND state = 'queued')`,
    client,
  );
}

export async function deleteHook(projectId: string, id: string): Promise<void> {
  await transaction(async (client) => {
    const before = await lockHook(client, projectId, id);
    if (!before) throw notFound("Document not found.");
    // Its changes not yet dispatched are queued first, then ended with the others: on record.
    await beginMatching(client, projectId, before);
    const rows = await query(sql`DELETE FROM hooks WHERE project_id = ${projectId} AND id = ${id} RETURNING id`, client);
    if (!rows.length) throw notFound("Document not found.");
    await query(
      sql`UPDATE hook_deliveries SET state = 'error', error = 'Hook was deleted', lease_until = NULL
          WHERE project_id = ${projectId} AND hook_id = ${id} AND state = 'queued'`,
      client,
    );
  });
}

/** Deletes the hooks among `ids` (delete by criteria); answers how many went. */
export async function deleteHooks(projectId: string, ids: string[]): Promise<number> {
  let deleted = 0;
  for (const id of ids) {
    await deleteHook(projectId, id).then(
      () => deleted++,
      () => {},
    );
  }
  return deleted;
}
