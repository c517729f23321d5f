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

/** A fresh blob key announced for deletion (see `commitBlobs`): bytes may be staged under it in place. */
export interface BlobReservation {
  key: string;
  /** The marker's id, once it is committed. */
  marker: Promise<string>;
}

/**
 * Reserves a key for one upload's bytes before they arrive (lib/files/staged-uploads.ts): the
 * marker commits while the body streams, and the bytes go straight under the key.
 */
export function reserveBlobKey(projectId: string): BlobReservation {
  const key = newBlobKey(projectId);
  return { key, marker: announceBlobKeys([key]).then((ids) => ids[0]) };
}

/** Drops the markers of reservations and staged files that will not be recorded; never throws. */
export async function releaseBlobKeys(markerIds: string[]): Promise<void> {
  if (markerIds.length) await query(sql`DELETE FROM blob_deletions WHERE id = ANY(${markerIds}::bigint[])`).catch(() => undefined);
}

/**
 * Each key is first announced in `blob_deletions` as "due in a day", owned by this process: if
 * the process dies before the record's transaction commits (which deletes the marker), the next
 * process to start on this host removes the stray blob (lib/files/clean-up-after-crash.ts), or
 * the deletion worker does when the marker is due.
 */
async function announceBlobKeys(keys: string[]): Promise<string[]> {
  if (!keys.length) return [];
  const markers = await query<{ id: string }>(
    // Committed without waiting for its WAL flush (synchronous_commit off for this statement's
    // own transaction): the record's commit, which is synchronous, flushes it anyway, and
    // only an OS crash before that could lose it, leaving a stray file, never a lost one.
    sql`WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true))
        INSERT INTO blob_deletions (blob_key, not_before, owner)
        SELECT k, now() + interval '1 day', ${processOwner()} FROM unnest(${keys}::text[]) k, async_commit RETURNING id`,
  );
  return markers.map((m) => String(m.id));
}

/**
 * Moves staged files to their final keys, announced first (`announceBlobKeys`); files staged in
 * place under a reservation are there already, under their own marker.
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
    blob_key: staged.staged.key ?? newBlobKey(target.projectId),
    date_created: now,
    last_access: now,
  }));
  const announced = await announceBlobKeys(rows.filter((_, i) => files[i].staged.staged.key === undefined).map((r) => r.blob_key));
  const markerIds = [...announced, ...files.flatMap(({ staged }) => (staged.markerId === undefined ? [] : [staged.markerId]))];
  const committed: string[] = [];
  const rollback = async () => {
    await Promise.all(files.map(({ staged }) => store.discard(staged.staged).catch(() => undefined)));
    await Promise.all(committed.map((key) => store.delete(key).catch(() => undefined)));
    await releaseBlobKeys(markerIds);
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
