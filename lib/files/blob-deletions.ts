import { query, transaction } from "../db/query";
import { sql } from "../db/sql";
import { fileBlobStore } from "./file-blob-store";

/**
 * Bytes leave the disk only after the transaction that dropped their file record committed:
 * every such transaction queues the blob in `blob_deletions`, and this worker deletes the blob,
 * then the queue row. Crash-safe (a row whose blob is already gone is simply removed) and safe
 * to run in several processes at once (`FOR UPDATE SKIP LOCKED`). A blob some file record still
 * names is never deleted, whatever the queue says.
 *
 * `projectId` limits a run to one project's blobs (keys start with `<project>/`): the run that
 * follows a commit touches only what that write queued. `owners` limits it to what those
 * (dead) processes queued: the start-up cleanup's run, which leaves live processes' rows to them.
 */
export async function processBlobDeletions(options: { projectId?: string; minAgeMs?: number; batch?: number; owners?: string[] } = {}): Promise<number> {
  const { projectId, minAgeMs = 0, batch = 500, owners } = options;
  const store = fileBlobStore();
  let total = 0;
  for (;;) {
    const done = await transaction(async (client) => {
      const rows = await query<{ id: string; blob_key: string; referenced: boolean }>(
        sql`SELECT bd.id, bd.blob_key, EXISTS (SELECT 1 FROM files f WHERE f.blob_key = bd.blob_key) AS referenced
            FROM blob_deletions bd
            WHERE bd.not_before <= now() - ${minAgeMs} * interval '1 millisecond'
              AND (${projectId ?? null}::text IS NULL OR bd.blob_key LIKE ${`${projectId}/%`})
              AND (${owners ?? null}::text[] IS NULL OR bd.owner = ANY(${owners ?? null}::text[]))
            ORDER BY bd.id LIMIT ${batch} FOR UPDATE OF bd SKIP LOCKED`,
        client,
      );
      for (const row of rows) if (!row.referenced) await store.delete(row.blob_key);
      if (rows.length) await client.query("DELETE FROM blob_deletions WHERE id = ANY($1::bigint[])", [rows.map((r) => r.id)]);
      return rows.length;
    });
    total += done;
    if (done < batch) return total;
  }
}

const running = new Map<string, Promise<void>>();
const again = new Set<string>();

/** Runs the deletions of one project soon, off the request path; coalesces bursts. */
export function scheduleBlobDeletions(projectId: string): void {
  if (running.has(projectId)) {
    again.add(projectId);
    return;
  }
  const run = (async () => {
    do {
      again.delete(projectId);
      await processBlobDeletions({ projectId }).catch((error) => console.error(`files: blob deletions of ${projectId}: ${(error as Error).message}`));
    } while (again.has(projectId));
  })().finally(() => running.delete(projectId));
  running.set(projectId, run);
}

/** Resolves when every scheduled run has finished (tests, shutdown). */
export async function blobDeletionsIdle(): Promise<void> {
  while (running.size) await Promise.all(running.values());
}
