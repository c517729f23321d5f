import type pg from "pg";
import { pool, runAsBackground } from "../db/pool";
import type { IndexSpec } from "./collection";
import { collectionPrefix, collectionPrefixOf, indexesNamed, planIndexes, INDEX_SWEEP_LOCK } from "./collection-indexes";

/**
 * Drops collection indexes that no collection wants ("orphans"): a project's delete removes its
 * collections in one transaction and leaves their indexes (dropping them there would lock the
 * documents table, which every project shares, until it commits); a collection delete or save
 * whose drop after the commit failed leaves some; a process killed during a save can leave a
 * half-built one. Every index on the documents table costs each insert a check of its predicate,
 * so these are not left to pile up. An index belongs to a collection by its name's prefix (a hash
 * of project and collection). One of a collection that still exists goes only once every index
 * its definition wants is in place and valid: one made by an older version for the same
 * definition keeps answering its queries until then. Runs at start, every ARCA_INDEX_SWEEP_MS
 * (default 10 minutes) and soon after a project delete or a failed drop; skips a round while any
 * collection save or delete is under way (they hold its lock shared), and drops with DROP INDEX
 * CONCURRENTLY.
 */
const SWEEP_EVERY_MS = Number(process.env.ARCA_INDEX_SWEEP_MS || 600_000);

let requestSweep: (() => void) | undefined;

/** After a project delete or a failed drop: sweep soon (a no-op where no sweeper runs). */
export function sweepIndexesSoon(): void {
  requestSweep?.();
}

/** One round; answers the names dropped (none when a save or delete holds the lock). */
export async function sweepOrphanIndexes(): Promise<string[]> {
  const client = await pool().connect();
  try {
    const { rows: [lock] } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${INDEX_SWEEP_LOCK}) AS locked`);
    if (!lock.locked) return [];
    try {
      const indexes = await indexesNamed(client, "di_");
      if (!indexes.size) return [];
      const orphans = await unwantedIndexes(client, indexes);
      for (const name of orphans) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
      return orphans;
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${INDEX_SWEEP_LOCK})`);
    }
  } finally {
    client.release();
  }
}

/** Of `indexes` (existing, by name and validity), those no collection's definition wants. */
async function unwantedIndexes(client: pg.PoolClient, indexes: Map<string, boolean>): Promise<string[]> {
  const { rows: collections } = await client.query<{ project_id: string; id: string; indexes: IndexSpec[] | null }>("SELECT project_id, id, indexes FROM collections");
  // Per live collection's prefix: the names it wants, or undefined to keep all of its indexes.
  const wanted = new Map<string, Set<string> | undefined>();
  for (const c of collections) {
    let names: Set<string> | undefined;
    try {
      names = new Set(planIndexes(c.project_id, c.id, c.indexes ?? []).map((index) => index.name));
    } catch (error) {
      console.error(`collections: reading the indexes ${c.project_id}/${c.id} wants: ${(error as Error).message}`);
    }
    wanted.set(collectionPrefix(c.project_id, c.id), names && [...names].every((name) => indexes.get(name) === true) ? names : undefined);
  }
  return [...indexes.keys()].filter((name) => {
    const prefix = collectionPrefixOf(name);
    if (!wanted.has(prefix)) return true;
    const names = wanted.get(prefix);
    return names !== undefined && !names.has(name);
  });
}

/**
 * One round before the server takes requests: a unique index left by a save that a crash cut off
 * (never answered, not in the collection's definition) would otherwise refuse writes until the
 * first scheduled round. Bounded by `ms`: past it the server starts and the round goes on.
 */
/** A round whose outcome goes to the log (a background round has nobody to answer). */
function sweepAndLog(): Promise<void> {
  return sweepOrphanIndexes().then(
    (dropped) => {
      if (dropped.length) console.info(`collections: dropped ${dropped.length} index(es) no collection wants`);
    },
    (error) => console.error(`collections: sweeping orphan indexes: ${(error as Error).message}`),
  );
}

export async function sweepBeforeServing(ms = 5000): Promise<void> {
  const round = runAsBackground(sweepAndLog);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([round, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

export function startIndexSweep(): () => void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = () => {
    if (stopped || running) return;
    running = sweepAndLog().finally(() => {
      running = undefined;
      schedule(SWEEP_EVERY_MS);
    });
  };
  const schedule = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    // Background work even when a request asked for it (sweepIndexesSoon): no statement timeout.
    timer = setTimeout(() => runAsBackground(run), ms);
    timer.unref();
  };
  requestSweep = () => schedule(1000);
  schedule(5000);
  return () => {
    stopped = true;
    requestSweep = undefined;
    if (timer) clearTimeout(timer);
  };
}
