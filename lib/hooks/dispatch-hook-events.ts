import type pg from "pg";
import { pool } from "../db/pool";
import { query, transaction } from "../db/query";
import { raw, sql } from "../db/sql";
import { comparePositions, readCommittedEvents, readEventsPastCursor, visibleInSnapshot, type OutboxEvent, type OutboxPosition } from "../outbox/outbox-events";
import { timeOrderedUuid } from "./hook-history";
import type { StepResult } from "../outbox/outbox-loop";
import { matchesConditions, type Hook } from "./hook";

/** A hook's row: its data and the snapshot its current matching began at (migration 0022). */
export interface StoredHook {
  data: Hook;
  matching_since: string | null;
}

/**
 * The hooks' reader of the outbox: takes committed events in commit order past the `hooks`
 * cursor and turns each (event, matching active hook) into a queued delivery, moving the cursor
 * in the same transaction. One process at a time does that (a transaction-scoped advisory lock);
 * the others' attempts return at once. Documents are read only for events some hook may want.
 *
 * It runs after commits of every project, and most events have no hook, so a step first PEEKS:
 * one plain statement from where this process knows everything is done. A page without hooked
 * events only moves that in-memory position (the stored cursor follows at most once a second,
 * for pruning and for other processes): no transaction, no lock, no write. Only a page with a
 * hooked event takes the locked path, from the later of the stored cursor and that position.
 * Everything before either is done: dispatched, or seen without a hook (a hook made later does
 * not want events from before it existed).
 */
const DISPATCH_LOCK = 7_042_001;
const BATCH = 500;
const CURSOR = "hooks";
const PERSIST_EVERY_MS = 1000;
const HOOKED = raw("EXISTS (SELECT 1 FROM hooks h WHERE h.project_id = e.project_id AND h.collection_id = e.collection_id AND h.is_active)");

/**
 * While the API is busy, deliveries are queued at the pace the paced workers deliver them
 * (hook-workers.ts: at most 640 a second): a step at most every 200 ms, of at most 128
 * deliveries. Queueing every hooked write's deliveries at once cost PostgreSQL more than the
 * writes' own inserts with three hooks (docs/performance.md, eighth pass) only to let them wait
 * in the queue; the events wait in the outbox instead, durably, and are queued at full pace once
 * the load eases.
 */
const BUSY_STEP_MS = 200;
const BUSY_DELIVERIES_PER_STEP = 128;

export interface HookDispatcherOptions {
  /** Whether the API is busy now (hook-workers.ts); none: never. */
  apiBusy?: () => boolean;
}

export interface HookDispatcher {
  step(): Promise<StepResult>;
  /** After the last step: stores where this process stands. */
  stop(): Promise<void>;
}

export function hookDispatcher(afterCommit: () => void, options: HookDispatcherOptions = {}): HookDispatcher {
  /** Everything up to here is done (this process's knowledge; the stored cursor may lag it). */
  let done: OutboxPosition | undefined;
  let persisted: OutboxPosition | undefined;
  let persistedAt = 0;

  let persistTimer: NodeJS.Timeout | undefined;
  /** The last locked step stopped at its budget of deliveries: hooked events wait past `done`. */
  let behind = false;
  let lockedAt = 0;

  /** Stores `done` at most once a second; a move held back is stored when the second is up. */
  async function persist(): Promise<void> {
    if (!done || (persisted && comparePositions(done, persisted) <= 0)) return;
    const wait = persistedAt + PERSIST_EVERY_MS - Date.now();
    if (wait > 0) {
      persistTimer ??= setTimeout(() => {
        persistTimer = undefined;
        persist().catch((error) => console.error(`hooks: storing the outbox cursor: ${(error as Error).message}`));
      }, wait);
      persistTimer.unref?.();
      return;
    }
    const at = done;
    // Never backwards: another process may have moved it further.
    await query(
      sql`UPDATE outbox_cursors SET txid = ${at.txid}::xid8, event_id = ${at.id}
          WHERE name = ${CURSOR} AND (txid, event_id) < (${at.txid}::xid8, ${at.id}::bigint)`,
    );
    persisted = at;
    persistedAt = Date.now();
  }

  async function step(): Promise<StepResult> {
    const busy = options.apiBusy?.() ?? false;
    // Known to be behind and paced: not even a peek (it would read the same waiting page again).
    if (busy && behind) {
      const wait = lockedAt + BUSY_STEP_MS - Date.now();
      if (wait > 0) return { more: false, held: false, waitMs: wait };
    }
    const peek = await readCommittedEvents(pool(), { after: { cursor: CURSOR, atLeast: done }, limit: BATCH, documents: HOOKED });
    if (!peek.events.some((e) => e.document !== null)) {
      behind = false;
      if (peek.events.length) done = peek.events[peek.events.length - 1];
      await persist();
      return { more: peek.full, held: peek.held };
    }
    lockedAt = Date.now();
    const result = await dispatchLocked(done, afterCommit, busy ? BUSY_DELIVERIES_PER_STEP : undefined);
    behind = result.cut;
    if (result.last) {
      done = result.last;
      persisted = result.last;
      persistedAt = Date.now();
    }
    const held = result.held || peek.held;
    // Only a paced step stops at a budget.
    if (result.cut) return { more: false, held, waitMs: BUSY_STEP_MS };
    return { more: result.more, held };
  }

  return {
    step,
    async stop() {
      if (persistTimer) clearTimeout(persistTimer);
      persistTimer = undefined;
      persistedAt = 0;
      await persist().catch((error) => console.error(`hooks: storing the outbox cursor: ${(error as Error).message}`));
    },
  };
}

/**
 * The locked path: reads past the stored cursor (or `done`), queues deliveries, moves the cursor,
 * in one transaction. With a `budget`, it stops before the event whose deliveries would pass that
 * many (`cut`); the first event's always go, however many.
 */
async function dispatchLocked(
  done: OutboxPosition | undefined,
  afterCommit: () => void,
  budget?: number,
): Promise<StepResult & { last?: OutboxPosition; cut: boolean }> {
  const client = await pool().connect();
  let open = false;
  try {
    // Losing this transaction in a crash loses its cursor move too: the events are dispatched
    // again (deliveries' ids are stable, so not twice), so it need not wait for the WAL flush.
    // Simple protocol: three statements, one round trip.
    open = true;
    const [, , lock] = (await client.query(
      `BEGIN; SET LOCAL synchronous_commit = off; SELECT pg_try_advisory_xact_lock(${DISPATCH_LOCK}) AS locked`,
    )) as unknown as pg.QueryResult<{ locked: boolean }>[];
    if (!lock.rows[0]?.locked) {
      await client.query("ROLLBACK");
      open = false;
      return { more: false, held: false, cut: false };
    }
    const limit = budget === undefined ? BATCH : Math.min(BATCH, budget);
    const { events, held, full } = await readCommittedEvents(client, { after: { cursor: CURSOR, atLeast: done }, limit, documents: HOOKED });
    if (!events.length) {
      await client.query("ROLLBACK");
      open = false;
      return { more: false, held, cut: false };
    }
    const { queued, through } = await queueDeliveries(client, events.filter((e) => e.document !== null), budget);
    const last = through ?? events[events.length - 1];
    // Positions come from the database (xid8 as digits, a bigint): safe to inline, so the move and
    // the commit go in one trip.
    if (!/^\d+$/.test(last.txid) || !Number.isSafeInteger(last.id)) throw new Error(`unexpected outbox position ${last.txid}/${last.id}`);
    await client.query(`UPDATE outbox_cursors SET txid = '${last.txid}'::xid8, event_id = ${last.id} WHERE name = '${CURSOR}'; COMMIT`);
    open = false;
    if (queued) {
      afterCommit();
      refreshQueueStatistics(queued);
    }
    return { more: full, held, last: { txid: last.txid, id: last.id }, cut: through !== undefined };
  } finally {
    if (open) await client.query("ROLLBACK").catch(() => {});
    client.release();
  }
}

/**
 * Before a hook is changed or deleted (its row locked by the caller's transaction): its deliveries
 * for the committed events the dispatcher has not reached yet, as the hook was. The dispatcher
 * matches an event against the hooks as they are when it reads it, and it reads events in commit
 * order, only once every older transaction has ended: behind a long transaction anywhere in the
 * database, a change committed while the hook was active and matching was read after the hook
 * was deactivated, deleted or given other conditions, and never delivered (CONTRACT §8: at least
 * once). Delivery ids derive from the event and the hook, so an event both reach is queued once.
 * Queued for a hook made inactive, they wait for it as its other queued deliveries do; a delete
 * then ends them ("Hook was deleted").
 */
export async function queueDeliveriesBeforeHookChange(client: pg.PoolClient, projectId: string, hook: StoredHook, snapshot: string): Promise<void> {
  if (!hook.data.is_active) return;
  let after: OutboxPosition | undefined;
  for (;;) {
    const events = await readEventsPastCursor(client, {
      cursor: CURSOR,
      projectId,
      collectionId: hook.data.collection,
      kinds: hook.data.triggers,
      after,
      limit: CATCH_UP_PAGE,
      visibleIn: snapshot,
    });
    if (!events.length) return;
    await queueDeliveries(client, events, Infinity, { project_id: projectId, ...hook });
    if (events.length < CATCH_UP_PAGE) return;
    after = events[events.length - 1];
  }
}

/** Events per page of that catch-up: documents may be up to 16 MiB each. */
const CATCH_UP_PAGE = 50;

/**
 * A burst fills the delivery queue faster than autovacuum (a minute's nap) re-analyzes it: on
 * statistics of a nearly empty table the claim read every queued row and sorted them (40 ms per
 * claim at 10,000 queued, against 0.2 ms on the due index once analyzed). After every 1,000
 * deliveries queued here, at most every 5 s, the table is analyzed (a sample; reads and writes
 * go on meanwhile). `hooks` is analyzed with it: a project has a few hooks, fewer than the 50
 * changes after which autovacuum analyzes a table, and on a never-analyzed `hooks` the planner
 * guessed its join with the queue kept 1 row in 200, so it sorted the whole queue again (120 ms
 * per claim at 40,000 queued, 4.5 ms with `hooks` analyzed). Only the columns the claim filters
 * and orders on get statistics: those of the request and response documents took about half the
 * ANALYZE's time; and from a sample of 3,000 rows (statistics target 10), not 30,000: with the
 * history of a few runs of bench:hooks in the table each ANALYZE took 300-370 ms of PostgreSQL's
 * time during a write load, and the claim needs only the share of queued rows and the rough
 * spread of due times. (A partial ANALYZE leaves autovacuum's count of changes alone, so
 * autovacuum still analyzes the whole table in its time, with the full sample.)
 */
const ANALYZE_AFTER = 1000;
const ANALYZE_EVERY_MS = 5000;
let queuedSinceAnalyze = 0;
let analyzedAt = 0;
let analyzing = false;

function refreshQueueStatistics(queued: number): void {
  queuedSinceAnalyze += queued;
  if (analyzing || queuedSinceAnalyze < ANALYZE_AFTER || Date.now() - analyzedAt < ANALYZE_EVERY_MS) return;
  analyzing = true;
  queuedSinceAnalyze = 0;
  analyzedAt = Date.now();
  transaction(async (client) => {
    await client.query("SET LOCAL default_statistics_target = 10");
    await client.query("ANALYZE hooks, hook_deliveries (project_id, hook_id, document_id, event_id, state, next_attempt_at, lease_until)");
  })
    .catch((error) => console.error(`hooks: analyzing the delivery queue: ${(error as Error).message}`))
    .finally(() => (analyzing = false));
}

/**
 * Inserts a delivery per (event, active hook whose triggers and conditions match); answers how
 * many, and, when a `budget` of deliveries stopped it early, the last event it took (`through`).
 */
async function queueDeliveries(
  client: pg.PoolClient,
  wanted: OutboxEvent[],
  budget = Infinity,
  only?: { project_id: string } & StoredHook,
): Promise<{ queued: number; through?: OutboxEvent }> {
  if (!wanted.length) return { queued: 0 };
  const hooks = only
    ? [only]
    : await query<{ project_id: string } & StoredHook>(
        sql`SELECT project_id, data, matching_since::text FROM hooks WHERE is_active AND (project_id, collection_id) IN
          (SELECT * FROM unnest(${wanted.map((e) => e.projectId)}::text[], ${wanted.map((e) => e.collectionId)}::text[]))`,
        client,
        { prepared: true },
      );
  const byScope = new Map<string, StoredHook[]>();
  for (const { project_id, data, matching_since } of hooks) {
    const key = `${project_id}\u0000${data.collection}`;
    byScope.set(key, [...(byScope.get(key) ?? []), { data, matching_since }]);
  }
  const rows = { id: [] as string[], project: [] as string[], hook: [] as string[], event: [] as number[], trigger: [] as string[], collection: [] as string[], document: [] as string[] };
  let through: OutboxEvent | undefined;
  for (const [i, event] of wanted.entries()) {
    const matching = (byScope.get(`${event.projectId}\u0000${event.collectionId}`) ?? [])
      // A change committed before this version of the hook belongs to the versions before it.
      .filter(({ matching_since }) => matching_since === null || !visibleInSnapshot(event.txid, matching_since))
      .map(({ data }) => data)
      .filter((hook) => hook.triggers.includes(event.kind) && matchesConditions(hook, event.document));
    if (rows.id.length && rows.id.length + matching.length > budget) {
      through = wanted[i - 1];
      break;
    }
    for (const hook of matching) {
      rows.id.push(timeOrderedUuid(event.createdAt.getTime(), `${event.projectId}/${hook._id}/${event.id}`));
      rows.project.push(event.projectId);
      rows.hook.push(hook._id);
      rows.event.push(event.id);
      rows.trigger.push(event.kind);
      rows.collection.push(event.collectionId);
      rows.document.push(event.documentId);
    }
  }
  if (!rows.id.length) return { queued: 0, through };
  // WITH ORDINALITY keeps the commit order in `seq`, which orders deliveries per document.
  await query(
    sql`WITH queued AS (
          INSERT INTO hook_deliveries (id, project_id, hook_id, event_id, trigger, collection_id, document_id)
          SELECT id, project_id, hook_id, event_id, trigger, collection_id, document_id
          FROM unnest(${rows.id}::text[], ${rows.project}::text[], ${rows.hook}::text[], ${rows.event}::bigint[], ${rows.trigger}::text[],
                      ${rows.collection}::text[], ${rows.document}::text[]) WITH ORDINALITY
               AS r(id, project_id, hook_id, event_id, trigger, collection_id, document_id, n)
          -- Only for hooks that still exist, held (KEY SHARE) until this commits: a hook deleted
          -- meanwhile would leave its deliveries queued forever (the delete ends the queued ones
          -- it sees, and claims skip hooks that are gone). A delete that comes later waits for
          -- this commit and then ends these too.
          WHERE EXISTS (SELECT 1 FROM hooks h WHERE h.project_id = r.project_id AND h.id = r.hook_id FOR KEY SHARE)
          ORDER BY n
          ON CONFLICT (id) DO NOTHING
          RETURNING 1
        )
        SELECT pg_notify('arca_hooks', '') WHERE EXISTS (SELECT 1 FROM queued)`,
    client,
    { prepared: true },
  );
  return { queued: rows.id.length, through };
}
