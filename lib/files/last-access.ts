import { query } from "../db/query";
import { sql } from "../db/sql";

/**
 * `last_access` of files, updated off the request path (CONTRACT §6): a content read only puts
 * the id in an in-process map; the map is flushed in batches (every second, or at 500 ids) with
 * one UPDATE that never moves a time backwards. A crash loses at most a second of access times,
 * which is all this field promises.
 */
const pending = new Map<string, { projectId: string; id: string; at: Date }>();
const BATCH = 500;
let flushing: Promise<void> | undefined;

export function touchFile(projectId: string, id: string): void {
  pending.set(`${projectId}\u0000${id}`, { projectId, id, at: new Date() });
  if (pending.size >= BATCH) void flushLastAccess();
}

/** Writes the queued access times; concurrent calls share one flush. */
export function flushLastAccess(): Promise<void> {
  if (flushing) return flushing;
  if (pending.size === 0) return Promise.resolve();
  flushing = (async () => {
    await Promise.resolve(); // `flushing` is assigned before the finally below can clear it
    try {
      while (pending.size) {
        const batch = [...pending.values()].slice(0, BATCH);
        for (const entry of batch) pending.delete(`${entry.projectId}\u0000${entry.id}`);
        await query(
          sql`UPDATE files f SET last_access = greatest(f.last_access, v.at)
              FROM unnest(${batch.map((e) => e.projectId)}::text[], ${batch.map((e) => e.id)}::text[], ${batch.map((e) => e.at)}::timestamptz[]) AS v(project_id, id, at)
              WHERE f.project_id = v.project_id AND f.id = v.id`,
        ).catch((error) => console.error(`files: last_access flush: ${(error as Error).message}`));
      }
    } finally {
      flushing = undefined;
    }
  })();
  return flushing;
}
