import { isDeadOwner } from "../blob/process-owner";
import { query } from "../db/query";
import { sql } from "../db/sql";
import { processBlobDeletions } from "./blob-deletions";
import { fileBlobStore } from "./file-blob-store";

/**
 * What a killed process leaves on disk, removed when the next one starts (not after an hour or a
 * day). Three kinds, each told from live work of another process on the same data dir:
 * - temp files of staged uploads: their name carries the writing process
 *   (`<uuid>.<host tag>-<pid>.part`); those of a process of this host that no longer exists go;
 * - blobs of uploads whose record never committed: their `blob_deletions` marker names the
 *   process too; a dead owner's markers become due now and are processed with the deletions it
 *   queued but did not run (the worker never removes a blob some file record names);
 * - blobs nothing knows about (no `files` row, no queue row): a walk of the blob directories.
 *   A live upload announces its marker before its blob appears, and its record replaces the
 *   marker in one transaction, so one statement's snapshot always sees one or the other.
 * Runs in the background right after start; the walk costs one directory listing per blob.
 */
export async function cleanUpAfterCrash(options: { batch?: number } = {}): Promise<{ tempFiles: number; queued: number; blobs: number }> {
  const batch = options.batch ?? 1000;
  const store = fileBlobStore();
  const tempFiles = await store.sweepDeadTemp();

  const owners = await query<{ owner: string }>(sql`SELECT DISTINCT owner FROM blob_deletions WHERE owner IS NOT NULL`);
  const dead = owners.map((row) => row.owner).filter(isDeadOwner);
  let queued = 0;
  if (dead.length) {
    await query(sql`UPDATE blob_deletions SET not_before = now() WHERE owner = ANY(${dead}::text[]) AND not_before > now()`);
    queued = await processBlobDeletions({ owners: dead });
  }

  let blobs = 0;
  let keys: string[] = [];
  const removeUnknown = async () => {
    const unknown = await query<{ key: string }>(
      sql`SELECT k AS key FROM unnest(${keys}::text[]) k
          WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.blob_key = k)
            AND NOT EXISTS (SELECT 1 FROM blob_deletions bd WHERE bd.blob_key = k)`,
    );
    for (const { key } of unknown) await store.delete(key);
    blobs += unknown.length;
    keys = [];
  };
  for await (const key of store.listKeys()) {
    keys.push(key);
    if (keys.length >= batch) await removeUnknown();
  }
  if (keys.length) await removeUnknown();
  return { tempFiles, queued, blobs };
}
