import { processOwner } from "../blob/process-owner";
import { onCommit, query, queryOne, type Queryable } from "../db/query";
import { raw, sql, type Sql } from "../db/sql";
import { signalOutboxCommit } from "../outbox/outbox-listener";
import { paymentRequired } from "../errors";
import { counterDelta, projectTotal, withLimitCheck } from "../projects/counters";
import { scheduleBlobDeletions } from "./blob-deletions";
import { FILE_COLUMNS, FILES_COLLECTION, fileIdsIn, fileRecord, fileRecordSql, type FileRow } from "./file-record";

export const FILES_LIMIT_MESSAGE = "Project files size limit exceeded";

/**
 * Inserts file records and adds their sizes to the project's `files_size` (a counter delta,
 * exact under any concurrency), refusing with 402 past `files_size_limit` (0 = none). Deletes
 * the upload's "pending" markers in `blob_deletions` in the same transaction: once this
 * commits, the blobs belong to their records.
 */
export async function insertFileRows(db: Queryable, rows: FileRow[], filesSizeLimit: number, markerIds: string[]): Promise<void> {
  if (rows.length === 0) return;
  const projectId = rows[0].project_id;
  const total = rows.reduce((sum, r) => sum + r.size, 0);
  const column = <K extends keyof FileRow>(key: K) => rows.map((r) => r[key]);
  // With a limit, the size is added first under the project's lock (withLimitCheck), refused
  // past the limit; without one (the common case) it joins the statement, so a caller without
  // other work needs no transaction: one round trip, one commit.
  if (filesSizeLimit > 0) {
    const withinLimit = sql`${projectTotal(projectId, "files_size")} + ${total}::bigint <= ${filesSizeLimit}::bigint`;
    const counted = await withLimitCheck(db, projectId, true, (db) =>
      queryOne(sql`WITH cd AS (${counterDelta(projectId, "", { filesSize: total }, withinLimit)} RETURNING 1) SELECT 1 FROM cd`, db),
    );
    if (!counted) throw paymentRequired(FILES_LIMIT_MESSAGE);
  }
  const addSize = filesSizeLimit > 0 ? raw("") : sql`cd AS (${counterDelta(projectId, "", { filesSize: total })}), `;
  // The rows, the markers' removal (the blobs now belong to the rows) and the event that brings
  // `_files` changes to the change feed (the dashboard's live files list) like documents'.
  await query(
    sql`WITH ${addSize}f AS (
          INSERT INTO files (project_id, id, collection_id, document_id, property, name, content_type, size, md5, blob_key, date_created, last_access, event_txid)
          SELECT *, pg_current_xact_id() FROM unnest(${column("project_id")}::text[], ${column("id")}::text[], ${column("collection_id")}::text[], ${column("document_id")}::text[],
            ${column("property")}::text[], ${column("name")}::text[], ${column("content_type")}::text[], ${column("size")}::bigint[], ${column("md5")}::text[],
            ${column("blob_key")}::text[], ${column("date_created")}::timestamptz[], ${column("last_access")}::timestamptz[])
        ), m AS (
          DELETE FROM blob_deletions WHERE id = ANY(${markerIds}::bigint[])
        ), ev AS (
          INSERT INTO document_events (project_id, collection_id, document_id, kind, after)
          SELECT ${projectId}, ${FILES_COLLECTION}, r->>'_id', 'created', r FROM unnest(${rows.map((r) => JSON.stringify(fileRecord(r)))}::jsonb[]) AS r
        )
        SELECT 1`,
    db,
  );
  onCommit(db, signalOutboxCommit);
}

/**
 * Deletes the project's file records matching `where` (over `files` columns): their blobs are
 * queued for deletion and their sizes subtracted, in the caller's transaction; the bytes go
 * after commit (this process's run, or the next process's start-up if this one dies first: the
 * queue rows name their owner). Returns the deleted rows.
 */
export async function deleteFileRows(db: Queryable, projectId: string, where: Sql): Promise<FileRow[]> {
  const rows = await query<FileRow>(
    sql`WITH f AS (
      DELETE FROM files WHERE project_id = ${projectId} AND ${where} RETURNING *
    ), bd AS (
      INSERT INTO blob_deletions (blob_key, owner) SELECT blob_key, ${processOwner()} FROM f
    ), cd AS (
      ${counterDelta(projectId, "", { filesSize: sql`-(SELECT coalesce(sum(size), 0) FROM f)` }, sql`EXISTS (SELECT 1 FROM f)`)}
    ), ev AS (
      INSERT INTO document_events (project_id, collection_id, document_id, kind, before, txid)
      SELECT ${projectId}, ${FILES_COLLECTION}, f.id, 'deleted', ${raw(fileRecordSql("f"))}, ${FILE_DELETED_TXID} FROM f
    )
    SELECT ${rawColumns} FROM f`,
    db,
  );
  if (rows.length) {
    onCommit(db, signalOutboxCommit);
    onCommit(db, () => scheduleBlobDeletions(projectId));
  }
  return rows;
}

const rawColumns = raw(FILE_COLUMNS);

/**
 * Where a file record's `deleted` event goes: never before its `created` one (migration 0018; as
 * `documents.event_txid`, lib/documents/document-statements.ts), over the deleted row `f`.
 */
export const FILE_DELETED_TXID = raw("greatest(pg_current_xact_id(), f.event_txid)");

/**
 * After a document write: the files the document held before and holds no more (a replaced or
 * removed file property) are deleted with it. Costs nothing for documents without files.
 */
export async function releaseDroppedFiles(
  db: Queryable,
  projectId: string,
  collectionId: string,
  documentId: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Promise<void> {
  const had = fileIdsIn(before);
  if (had.size === 0) return;
  const kept = fileIdsIn(after);
  const dropped = [...had].filter((id) => !kept.has(id));
  if (dropped.length === 0) return;
  await deleteFileRows(db, projectId, sql`collection_id = ${collectionId} AND document_id = ${documentId} AND id = ANY(${dropped}::text[])`);
}

/** The rows among `ids` that are files of one document (its own, whatever it holds now). */
export async function documentFileRows(db: Queryable | undefined, projectId: string, collectionId: string, documentId: string, ids: string[]): Promise<FileRow[]> {
  return query<FileRow>(
    sql`SELECT ${rawColumns} FROM files WHERE project_id = ${projectId} AND collection_id = ${collectionId} AND document_id = ${documentId}
        AND id = ANY(${ids}::text[])`,
    db,
  );
}

/** One file record of the project, or undefined. */
export async function findFileRow(db: Queryable | undefined, projectId: string, fileId: string): Promise<FileRow | undefined> {
  return queryOne<FileRow>(sql`SELECT ${rawColumns} FROM files WHERE project_id = ${projectId} AND id = ${fileId}`, db);
}
