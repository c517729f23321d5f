import { generateId } from "../auth/secrets";
import { processOwner } from "../blob/process-owner";
import { query } from "../db/query";
import { sql } from "../db/sql";
import { fileBlobStore, newBlobKey } from "./file-blob-store";
import { fileRecord, type FileRecord, type FileRow } from "./file-record";
import type { StagedFile } from "./staged-uploads";

/*
 * The bracket around every upload, "blob first, then row" (the HTTP layer streams the parts to
 * temp files first: lib/http/upload-body.ts):
 *
 *   const blobs = await commitBlobs(files);                          // temp -> blobs, announced
 *   try { transaction(... insertFileRows(client, blobs.rows, ...) + the document write ...) }
 *   catch (e) { await blobs.rollback(); throw e; }                 // nothing stays behind
 */
export interface FileTarget {
  projectId: string;
  collectionId: string;
  documentId: string;
  /** The dotted property path ("" for a direct `_files` upload). */
  property: string;
  /** The file id; generated when absent. */
  id?: string;
}

export interface CommittedBlobs {
  rows: FileRow[];
  records: FileRecord[];
  markerIds: string[];
  /** Deletes the blobs and their markers (after the transaction failed). */
  rollback(): Promise<void>;
}

/**
 * Moves staged files to their final keys. Each key is first announced in `blob_deletions` as
 * "due in a day", owned by this process: if the process dies before the record's transaction
 * commits (which deletes the marker), the next process to start on this host removes the stray
 * blob (lib/files/clean-up-after-crash.ts), or the deletion worker does when the marker is due.
 */
export async function commitBlobs(files: { staged: StagedFile; target: FileTarget }[]): Promise<CommittedBlobs> {
  const store = fileBlobStore();
  const now = new Date();
  const rows: FileRow[] = files.map(({ staged, target }) => ({
    project_id: target.projectId,
    id: target.id ?? generateId(),
    collection_id: target.collectionId,
    document_id: target.documentId,
    property: target.property,
    name: staged.name,
    content_type: staged.contentType,
    size: staged.staged.size,
    md5: staged.staged.md5,
    blob_key: newBlobKey(target.projectId),
    date_created: now,
    last_access: now,
  }));
  const markers = rows.length
    ? await query<{ id: string }>(
        // Committed without waiting for its WAL flush (synchronous_commit off for this statement's
        // own transaction): the record's commit, which is synchronous, flushes it anyway, and
        // only an OS crash before that could lose it, leaving a stray file, never a lost one.
        sql`WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true))
            INSERT INTO blob_deletions (blob_key, not_before, owner)
            SELECT k, now() + interval '1 day', ${processOwner()} FROM unnest(${rows.map((r) => r.blob_key)}::text[]) k, async_commit RETURNING id`,
      )
    : [];
  const markerIds = markers.map((m) => String(m.id));
  const committed: string[] = [];
  const rollback = async () => {
    await Promise.all(files.map(({ staged }) => store.discard(staged.staged).catch(() => undefined)));
    await Promise.all(committed.map((key) => store.delete(key).catch(() => undefined)));
    if (markerIds.length) await query(sql`DELETE FROM blob_deletions WHERE id = ANY(${markerIds}::bigint[])`).catch(() => undefined);
  };
  try {
    for (let i = 0; i < rows.length; i++) {
      await store.commit(files[i].staged.staged, rows[i].blob_key);
      committed.push(rows[i].blob_key);
    }
  } catch (error) {
    await rollback();
    throw error;
  }
  return { rows, records: rows.map(fileRecord), markerIds, rollback };
}
