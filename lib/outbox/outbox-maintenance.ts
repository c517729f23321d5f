import { query, queryOne, transaction } from "../db/query";
import { sql } from "../db/sql";
import { counterDelta } from "../projects/counters";
import { defaultSettings, parseDuration } from "../projects/project";

/**
 * Keeps the outbox and the hooks history bounded (docs/architecture.md "Outbox"). Every minute,
 * in one process at a time (advisory lock):
 * - an event is removed once it is older than its project's `settings.events_ttl` (default 24 h:
 *   the change feed can resume from it until then), the hooks dispatcher has passed it, and no
 *   queued delivery still reads it; `status.events_size` drops by its document copy;
 * - finished deliveries (`_hooks_history`) go after `settings.hooks_history_ttl` (default 720 h).
 * Both in batches, so a large backlog never holds long locks.
 */
const MAINTENANCE_LOCK = 7_042_002;
const BATCH = 5_000;

export async function pruneOutbox(): Promise<{ events: number; history: number }> {
  return transaction(async (client) => {
    const lock = await queryOne<{ locked: boolean }>(sql`SELECT pg_try_advisory_xact_lock(${MAINTENANCE_LOCK}) AS locked`, client);
    if (!lock?.locked) return { events: 0, history: 0 };
    const projects = await query<{ id: string; events_ttl: string | null; history_ttl: string | null }>(
      sql`SELECT id, settings->>'events_ttl' AS events_ttl, settings->>'hooks_history_ttl' AS history_ttl FROM projects`,
      client,
    );
    let events = 0;
    let history = 0;
    for (const project of projects) {
      const eventsTtl = parseDuration(project.events_ttl ?? defaultSettings.events_ttl) ?? 0;
      if (eventsTtl > 0) {
        const [row] = await query<{ n: number }>(
          sql`WITH gone AS (
                DELETE FROM document_events WHERE id IN (
                  SELECT e.id FROM document_events e, outbox_cursors c
                  WHERE c.name = 'hooks' AND e.project_id = ${project.id} AND e.created_at < now() - make_interval(secs => ${eventsTtl / 1000})
                    AND (e.txid, e.id) <= (c.txid, c.event_id)
                    AND NOT EXISTS (SELECT 1 FROM hook_deliveries d WHERE d.event_id = e.id AND d.event_id IS NOT NULL AND d.state = 'queued')
                  LIMIT ${BATCH})
                RETURNING collection_id, coalesce(size, octet_length(coalesce(after, before)::text)) AS size
              ), counted AS (
                ${counterDelta(project.id, "", { eventsSize: sql`-(SELECT coalesce(sum(size), 0) FROM gone WHERE collection_id <> '_files')` }, sql`EXISTS (SELECT 1 FROM gone)`)}
              )
              SELECT count(*)::int AS n FROM gone`,
          client,
        );
        events += row.n;
      }
      const historyTtl = parseDuration(project.history_ttl ?? defaultSettings.hooks_history_ttl) ?? 0;
      if (historyTtl > 0) {
        const rows = await query(
          sql`DELETE FROM hook_deliveries WHERE seq IN (
                SELECT seq FROM hook_deliveries WHERE project_id = ${project.id} AND state <> 'queued'
                  AND date_created < now() - make_interval(secs => ${historyTtl / 1000}) LIMIT ${BATCH})
              RETURNING 1`,
          client,
        );
        history += rows.length;
      }
    }
    return { events, history };
  });
}

export function startOutboxMaintenance(intervalMs = 60_000): () => void {
  const timer = setInterval(() => {
    pruneOutbox().catch((error) => console.error(`outbox: pruning failed: ${(error as Error).message}`));
  }, intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
