import { pool, runAsBackground } from "../db/pool";
import { collectionPrefix, collectionPrefixOf, indexesNamed, INDEX_SWEEP_LOCK } from "./collection-indexes";

/**
 * Drops collection indexes whose collection is gone: a project's delete removes its collections
 * in one transaction and leaves their indexes (dropping them there would lock the documents table,
 * which every project shares, until it commits), and a process killed during a save can leave a
 * half-built one. Every index on the documents table costs each insert a check of its predicate,
 * so these are not left to pile up. An index belongs to a collection by its name's prefix (a hash
 * of project and collection). Runs at start, every ARCA_INDEX_SWEEP_MS (default 10 minutes) and
 * soon after a project is deleted; skips a round while any collection save or delete is under way
 * (they hold its lock shared), and drops with DROP INDEX CONCURRENTLY.
 */
const SWEEP_EVERY_MS = Number(process.env.ARCA_INDEX_SWEEP_MS || 600_000);

let requestSweep: (() => void) | undefined;

/** After a project delete: sweep soon (a no-op where no sweeper runs). */
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
      const indexes = [...(await indexesNamed(client, "di_")).keys()];
      if (!indexes.length) return [];
      const { rows: collections } = await client.query<{ project_id: string; id: string }>("SELECT project_id, id FROM collections");
      const live = new Set(collections.map((c) => collectionPrefix(c.project_id, c.id)));
      const orphans = indexes.filter((name) => !live.has(collectionPrefixOf(name)));
      for (const name of orphans) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
      return orphans;
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${INDEX_SWEEP_LOCK})`);
    }
  } finally {
    client.release();
  }
}

export function startIndexSweep(): () => void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = () => {
    if (stopped || running) return;
    running = sweepOrphanIndexes()
      .then((dropped) => {
        if (dropped.length) console.info(`collections: dropped ${dropped.length} index(es) of collections that are gone`);
      })
      .catch((error) => console.error(`collections: sweeping orphan indexes: ${(error as Error).message}`))
      .finally(() => {
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
