import type pg from "pg";
import { pool } from "../db/pool";
import { onCommit, query, transaction, type Queryable } from "../db/query";
import { claimLimitWarnings, mailLimitWarnings } from "./limit-warnings";
import { raw, sql, type Sql } from "../db/sql";

/**
 * The project and collection counters (`documents_count`, `data_size`, `files_size`), kept exact
 * without hot rows (migration 0005): a write appends its change to `counter_deltas` in the same
 * statement or transaction; readers add the pending deltas (`documentsCount`, the
 * `project_totals` view); `compactCounters` folds them into the columns every second.
 */
export interface CounterChange {
  documents?: Sql | number;
  dataSize?: Sql | number;
  filesSize?: Sql | number;
  /** Bytes of document copies in the outbox (`status.events_size`). */
  eventsSize?: Sql | number;
}

/**
 * A statement (usable as a CTE body) appending one delta row. `when` gates it, e.g. on the rows a
 * sibling CTE changed (`EXISTS (SELECT 1 FROM d)`).
 */
export function counterDelta(projectId: string, collectionId: string, change: CounterChange, when: Sql = raw("TRUE")): Sql {
  const value = (v: Sql | number | undefined) => (v === undefined ? raw("0") : typeof v === "number" ? sql`${v}::bigint` : v);
  return sql`INSERT INTO counter_deltas (project_id, collection_id, documents, data_size, files_size, events_size)
    SELECT ${projectId}, ${collectionId}, ${value(change.documents)}, ${value(change.dataSize)}, ${value(change.filesSize)}, ${value(change.eventsSize)} WHERE ${when}`;
}

/**
 * A collection's exact `documents_count` (column plus pending deltas), for a `collections` row
 * named `alias` in the query. Trusted text: `alias` is always a literal of our own code.
 */
export function documentsCount(alias: string): Sql {
  return raw(
    `(${alias}.documents_count + coalesce((SELECT sum(cd.documents) FROM counter_deltas cd WHERE cd.project_id = ${alias}.project_id AND cd.collection_id = ${alias}.id), 0))::bigint`,
  );
}

/** The project's current data and files size (columns plus pending deltas), for limit checks. */
export function projectTotal(projectId: string, counter: "data_size" | "files_size"): Sql {
  return sql`(SELECT ${raw(counter)} FROM project_totals WHERE project_id = ${projectId})`;
}

/**
 * The project's row, locked until the transaction ends: how writers of a project with a size limit
 * take turns. Taken before any document or collection row (lib/documents/write-transaction.ts,
 * lib/collections/delete-collection.ts), so those transactions never wait on each other in a circle.
 */
export async function lockProjectRow(client: Queryable, projectId: string): Promise<void> {
  await query(sql`SELECT 1 FROM projects WHERE id = ${projectId} FOR UPDATE`, client);
}

/**
 * Runs a write that checks a size limit. Unlimited projects (the common case) take no lock.
 * With a limit, writers of the project are serialised on its row, and the check runs in a
 * statement that starts after the lock is held, so it sees every earlier writer's delta: exact.
 */
export async function withLimitCheck<T>(db: Queryable, projectId: string, limited: boolean, work: (db: Queryable) => Promise<T>): Promise<T> {
  if (!limited) return work(db);
  const lock = (client: Queryable) => lockProjectRow(client, projectId);
  // Still holding the lock, tell the owner if this write brought the project near a limit (CONTRACT §2).
  if (isTransactionClient(db)) {
    // Inside another write's check (a document replaced within an upload): that one holds the
    // lock and looks at usage once the whole write is done. Looking here, between the new file's
    // row and the release of the old one, warned of both sizes added up.
    if (checking.has(db)) return work(db);
    await lock(db);
    checking.add(db);
    try {
      const result = await work(db);
      const warnings = await claimLimitWarnings(db, projectId);
      if (warnings.length) onCommit(db, () => mailLimitWarnings(warnings));
      return result;
    } finally {
      checking.delete(db);
    }
  }
  const [result, warnings] = await transaction(async (client) => {
    await lock(client);
    const result = await work(client);
    return [result, await claimLimitWarnings(client, projectId)] as const;
  });
  mailLimitWarnings(warnings);
  return result;
}

/** Transaction clients inside a `withLimitCheck` now. */
const checking = new WeakSet<object>();

function isTransactionClient(db: Queryable): db is pg.PoolClient {
  // Callers hand a pool client only from inside `transaction()`; the pool itself has no release.
  return typeof (db as Partial<pg.PoolClient>).release === "function";
}

/**
 * When a collection or project is deleted, its pending deltas must not count for one later
 * created under the same id. Rather than touching delta rows (which the compactor may hold), this
 * appends their negation: the sum over the id is zero again at every instant. For a collection
 * only `documents` is cancelled: its data and files left through their own negative deltas.
 */
export async function cancelPendingCounters(db: Queryable, projectId: string, collectionId?: string): Promise<void> {
  if (collectionId !== undefined) {
    await query(
      sql`INSERT INTO counter_deltas (project_id, collection_id, documents)
          SELECT ${projectId}, ${collectionId}, -sum(documents)::bigint FROM counter_deltas
          WHERE project_id = ${projectId} AND collection_id = ${collectionId} HAVING sum(documents) <> 0`,
      db,
    );
    return;
  }
  await query(
    sql`INSERT INTO counter_deltas (project_id, collection_id, documents, data_size, files_size, events_size)
        SELECT project_id, collection_id, -sum(documents)::bigint, -sum(data_size)::bigint, -sum(files_size)::bigint, -sum(events_size)::bigint
        FROM counter_deltas WHERE project_id = ${projectId} GROUP BY project_id, collection_id`,
    db,
  );
}

const BATCH = 50_000;

/**
 * Compaction and the cancelling of a deleted collection's or project's deltas exclude each other.
 * A compaction that had taken delta rows (deleted, not yet committed) and then waited for the
 * deleted collection's row would commit their removal after the cancel had negated them: the
 * negation stayed alone, and a collection made again under that id counted one (or more) low.
 * Deleters hold this lock shared from their transaction's start (before any row lock, so no
 * deadlock); a compaction only tries it exclusively and skips its turn while a delete runs.
 */
const COUNTER_FOLD_LOCK = 7_042_003;

/** First in a transaction that deletes a collection or project (see COUNTER_FOLD_LOCK). */
export async function holdOffCounterCompaction(client: Queryable): Promise<void> {
  await query(sql`SELECT pg_advisory_xact_lock_shared(${COUNTER_FOLD_LOCK})`, client);
}

/** Folds pending deltas into the counter columns; returns how many rows it folded. */
export async function compactCounters(db: Queryable = pool()): Promise<number> {
  const rows = await query<{ n: number }>(
    sql`WITH fold AS (
      SELECT pg_try_advisory_xact_lock(${COUNTER_FOLD_LOCK}) AS allowed
    ), moved AS (
      DELETE FROM counter_deltas WHERE (SELECT allowed FROM fold)
        AND id IN (SELECT id FROM counter_deltas ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
      RETURNING project_id, collection_id, documents, data_size, files_size, events_size
    ), c AS (
      UPDATE collections c SET documents_count = c.documents_count + s.n
      FROM (SELECT project_id, collection_id, sum(documents)::bigint AS n FROM moved GROUP BY 1, 2) s
      WHERE c.project_id = s.project_id AND c.id = s.collection_id AND s.n <> 0
    ), p AS (
      UPDATE projects p SET data_size = p.data_size + s.d, files_size = p.files_size + s.f, events_size = p.events_size + s.e
      FROM (SELECT project_id, sum(data_size)::bigint AS d, sum(files_size)::bigint AS f, sum(events_size)::bigint AS e FROM moved GROUP BY 1) s
      WHERE p.id = s.project_id
    )
    SELECT count(*)::int AS n FROM moved`,
    db,
  );
  return rows[0]?.n ?? 0;
}

/** Compacts every second while the server runs; returns the stop function. */
export function startCounterCompaction(intervalMs = 1000): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    compactCounters()
      .catch((error) => console.error(`counters: compaction failed: ${(error as Error).message}`))
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
