import { onCommit, query, queryOne, transaction } from "../db/query";
import { raw, sql } from "../db/sql";
import { readCommittedEvents, type OutboxPosition } from "../outbox/outbox-events";
import { timeOrderedUuid } from "./hook-history";
import type { StepResult } from "../outbox/outbox-loop";
import { matchesConditions, type Hook } from "./hook";

/**
 * The hooks' reader of the outbox: takes committed events in commit order past the `hooks`
 * cursor and turns each (event, matching active hook) into a queued delivery, moving the cursor
 * in the same transaction. One process at a time does it (a transaction-scoped advisory lock);
 * the others' attempts return at once. Documents are read only for events some hook may want.
 */
const DISPATCH_LOCK = 7_042_001;
const BATCH = 500;

export async function dispatchHookEvents(afterCommit: () => void): Promise<StepResult> {
  return transaction(async (client) => {
    const lock = await queryOne<{ locked: boolean }>(sql`SELECT pg_try_advisory_xact_lock(${DISPATCH_LOCK}) AS locked`, client);
    if (!lock?.locked) return { more: false, held: false };
    // Losing this transaction in a crash loses its cursor move too: the events are dispatched
    // again, so it need not wait for the WAL flush.
    await client.query("SET LOCAL synchronous_commit = off");
    const cursor = await queryOne<{ txid: string; event_id: number }>(sql`SELECT txid::text AS txid, event_id FROM outbox_cursors WHERE name = 'hooks'`, client);
    const after: OutboxPosition = { txid: cursor?.txid ?? "0", id: Number(cursor?.event_id ?? 0) };
    const { events, held } = await readCommittedEvents(client, {
      after,
      limit: BATCH,
      documents: raw("EXISTS (SELECT 1 FROM hooks h WHERE h.project_id = e.project_id AND h.collection_id = e.collection_id AND h.is_active)"),
    });
    if (!events.length) return { more: false, held };

    const wanted = events.filter((e) => e.document !== null);
    let queued = 0;
    if (wanted.length) {
      const hooks = await query<{ project_id: string; data: Hook }>(
        sql`SELECT project_id, data FROM hooks WHERE is_active AND (project_id, collection_id) IN
              (SELECT * FROM unnest(${wanted.map((e) => e.projectId)}::text[], ${wanted.map((e) => e.collectionId)}::text[]))`,
        client,
      );
      const byScope = new Map<string, Hook[]>();
      for (const { project_id, data } of hooks) {
        const key = `${project_id}\u0000${data.collection}`;
        byScope.set(key, [...(byScope.get(key) ?? []), data]);
      }
      const rows = { id: [] as string[], project: [] as string[], hook: [] as string[], event: [] as number[], trigger: [] as string[], collection: [] as string[], document: [] as string[] };
      for (const event of wanted) {
        for (const hook of byScope.get(`${event.projectId}\u0000${event.collectionId}`) ?? []) {
          if (!hook.triggers.includes(event.kind) || !matchesConditions(hook, event.document)) continue;
          rows.id.push(timeOrderedUuid(event.createdAt.getTime(), `${event.projectId}/${hook._id}/${event.id}`));
          rows.project.push(event.projectId);
          rows.hook.push(hook._id);
          rows.event.push(event.id);
          rows.trigger.push(event.kind);
          rows.collection.push(event.collectionId);
          rows.document.push(event.documentId);
        }
      }
      if (rows.id.length) {
        // WITH ORDINALITY keeps the commit order in `seq`, which orders deliveries per document.
        await query(
          sql`INSERT INTO hook_deliveries (id, project_id, hook_id, event_id, trigger, collection_id, document_id)
              SELECT id, project_id, hook_id, event_id, trigger, collection_id, document_id
              FROM unnest(${rows.id}::text[], ${rows.project}::text[], ${rows.hook}::text[], ${rows.event}::bigint[], ${rows.trigger}::text[],
                          ${rows.collection}::text[], ${rows.document}::text[]) WITH ORDINALITY
                   AS r(id, project_id, hook_id, event_id, trigger, collection_id, document_id, n)
              ORDER BY n
              ON CONFLICT (id) DO NOTHING`,
          client,
        );
        await query(sql`SELECT pg_notify('arca_hooks', '')`, client);
        queued = rows.id.length;
      }
    }
    const last = events[events.length - 1];
    await query(sql`UPDATE outbox_cursors SET txid = ${last.txid}::xid8, event_id = ${last.id} WHERE name = 'hooks'`, client);
    if (queued) onCommit(client, afterCommit);
    return { more: events.length === BATCH, held };
  });
}
