import { conflict, paymentRequired } from "../errors";
import { raw, sql, type Sql } from "../db/sql";
import { counterDelta, projectTotal, withLimitCheck } from "../projects/counters";
import { onCommit, query, queryOne, type Queryable } from "../db/query";
import { signalOutboxCommit } from "../outbox/outbox-listener";
import { scheduleBlobDeletions } from "../files/blob-deletions";
import { FILES_COLLECTION, fileIdsIn, fileRecordSql } from "../files/file-record";
import { FILE_DELETED_TXID, releaseDroppedFiles } from "../files/file-rows";
import type { ProjectScope } from "../collections/collection";
import { schemaGuard, StaleCollectionState, type CollectionState } from "./collection-state";

/**
 * The three write statements every document operation is made of. Each is ONE statement that
 * also records its change of the counters (`documents_count`, `data_size` = sum of
 * `octet_length(data::text)`, `files_size`; see lib/projects/counters.ts) and writes the outbox
 * (`document_events`, one copy of the document: as stored, or as it was for a delete; lib/outbox),
 * so a write is atomic whether it runs alone or inside a transaction.
 */
type Doc = Record<string, unknown>;

/**
 * Where a write's event on a stored document goes in the outbox: at its own transaction's id, but
 * never before the document's previous event (migration 0016). The previous writer held the row
 * lock until it committed, so a transaction that got its id before waiting for that lock would
 * otherwise order its change first and readers would deliver the older state last. Evaluated
 * under the row lock (in the UPDATE/DELETE itself), over the row's current version.
 */
const NEXT_EVENT_TXID = raw("greatest(pg_current_xact_id(), documents.event_txid)");

export const LIMIT_MESSAGE = "Project data size limit exceeded";
export const ID_TAKEN = "Document with this _id already exists.";

/** Inserts a document, creating its collection (schema-less) when missing. 409 on a taken `_id`. */
export async function insertDocument(db: Queryable, scope: ProjectScope, collectionId: string, state: CollectionState, doc: Doc): Promise<Doc> {
  const { projectId, dataSizeLimit } = scope;
  const size = sql`(SELECT size FROM input)`;
  const guard = schemaGuard(projectId, collectionId, state);
  const withinLimit = dataSizeLimit > 0 ? sql`${projectTotal(projectId, "data_size")} + ${size} <= ${dataSizeLimit}::bigint` : raw("TRUE");
  // A collection known to exist is not upserted (6 % of the statement's time in SQL): if it
  // was deleted meanwhile, the documents row's foreign key fails (23503) and `withFreshState`
  // retries with a state that creates it.
  const createCollection = state.exists
    ? raw("")
    : sql`, co AS (
        INSERT INTO collections (project_id, id) SELECT ${projectId}, ${collectionId} FROM d ON CONFLICT (project_id, id) DO NOTHING
      )`;
  const row = await withLimitCheck(db, projectId, dataSizeLimit > 0, (db) =>
    run(
      db,
      sql`WITH input AS (
        SELECT x.data, octet_length(x.data::text) AS size FROM (SELECT ${JSON.stringify(doc)}::jsonb AS data) x
      ), ok AS (
        SELECT 1 WHERE ${guard} AND ${withinLimit}
      ), d AS (
        INSERT INTO documents (project_id, collection_id, id, data, event_txid) SELECT ${projectId}, ${collectionId}, ${doc._id as string}, input.data, pg_current_xact_id() FROM ok, input
        RETURNING id, data, event_txid
      )${createCollection}, cd AS (
        ${counterDelta(projectId, collectionId, { documents: 1, dataSize: size, eventsSize: size }, sql`EXISTS (SELECT 1 FROM d)`)}
      ), ev AS (
        INSERT INTO document_events (project_id, collection_id, document_id, kind, after, size, txid) SELECT ${projectId}, ${collectionId}, id, 'created', data, ${size}, event_txid FROM d
      )
      SELECT (SELECT data FROM d) AS data, ${guard} AS fresh`,
    ),
  );
  if (row.data) {
    onCommit(db, signalOutboxCommit);
    return row.data;
  }
  if (!row.fresh) throw new StaleCollectionState();
  throw paymentRequired(LIMIT_MESSAGE);
}

/** Replaces a stored document (`before` was read FOR UPDATE by the caller's transaction). */
export async function replaceDocument(db: Queryable, scope: ProjectScope, collectionId: string, state: CollectionState, before: Doc, after: Doc): Promise<Doc> {
  const { projectId, dataSizeLimit } = scope;
  const id = after._id as string;
  const guard = schemaGuard(projectId, collectionId, state);
  const delta = sql`((SELECT size FROM input) - (SELECT octet_length(data::text) FROM documents WHERE project_id = ${projectId} AND collection_id = ${collectionId} AND id = ${id}))`;
  const withinLimit =
    dataSizeLimit > 0 ? sql`(${delta} <= 0 OR ${projectTotal(projectId, "data_size")} + ${delta} <= ${dataSizeLimit}::bigint)` : raw("TRUE");
  const row = await withLimitCheck(db, projectId, dataSizeLimit > 0, (db) =>
    run(
      db,
      sql`WITH input AS (
        SELECT x.data, octet_length(x.data::text) AS size FROM (SELECT ${JSON.stringify(after)}::jsonb AS data) x
      ), change AS (
        SELECT ${delta} AS size WHERE ${guard} AND ${withinLimit}
      ), d AS (
        UPDATE documents SET data = input.data, updated_at = now(), event_txid = ${NEXT_EVENT_TXID} FROM change, input
        WHERE project_id = ${projectId} AND collection_id = ${collectionId} AND documents.id = ${id}
        RETURNING documents.id, documents.data, documents.event_txid
      ), cd AS (
        ${counterDelta(projectId, collectionId, { dataSize: sql`(SELECT size FROM change)`, eventsSize: sql`(SELECT size FROM input)` }, sql`EXISTS (SELECT 1 FROM d)`)}
      ), ev AS (
        INSERT INTO document_events (project_id, collection_id, document_id, kind, after, size, txid)
        SELECT ${projectId}, ${collectionId}, id, 'updated', data, (SELECT size FROM input), event_txid FROM d
      )
      SELECT (SELECT data FROM d) AS data, ${guard} AS fresh`,
    ),
  );
  if (row.data) {
    onCommit(db, signalOutboxCommit);
    // A file property replaced or removed: its record goes in this transaction, its bytes after.
    await releaseDroppedFiles(db, projectId, collectionId, id, before, row.data);
    return row.data;
  }
  if (!row.fresh) throw new StaleCollectionState();
  throw paymentRequired(LIMIT_MESSAGE);
}

/**
 * Replaces many stored documents in ONE statement (`X-Action: update`): the rows, one counter
 * delta for the whole change, and an `updated` event per document in the order given (the rows
 * were read FOR UPDATE by the caller's transaction). Answers how many rows changed.
 */
export async function replaceDocuments(
  db: Queryable,
  scope: ProjectScope,
  collectionId: string,
  state: CollectionState,
  changes: { before: Doc; after: Doc }[],
): Promise<number> {
  if (changes.length === 0) return 0;
  const { projectId, dataSizeLimit } = scope;
  const ids = changes.map((c) => c.after._id as string);
  const guard = schemaGuard(projectId, collectionId, state);
  const delta = sql`((SELECT coalesce(sum(size), 0) FROM input) - (SELECT coalesce(sum(octet_length(x.data::text)), 0) FROM documents x
    WHERE x.project_id = ${projectId} AND x.collection_id = ${collectionId} AND x.id = ANY(${ids}::text[])))`;
  const withinLimit =
    dataSizeLimit > 0 ? sql`(${delta} <= 0 OR ${projectTotal(projectId, "data_size")} + ${delta} <= ${dataSizeLimit}::bigint)` : raw("TRUE");
  const row = await withLimitCheck(db, projectId, dataSizeLimit > 0, (db) =>
    queryOne<{ updated: number; fresh: boolean }>(
      sql`WITH input AS (
        SELECT i.id, i.data, octet_length(i.data::text) AS size, i.n
        FROM unnest(${ids}::text[], ${changes.map((c) => JSON.stringify(c.after))}::jsonb[]) WITH ORDINALITY AS i(id, data, n)
      ), change AS (
        SELECT ${delta} AS size WHERE ${guard} AND ${withinLimit}
      ), d AS (
        UPDATE documents SET data = input.data, updated_at = now(), event_txid = ${NEXT_EVENT_TXID} FROM change, input
        WHERE documents.project_id = ${projectId} AND documents.collection_id = ${collectionId} AND documents.id = input.id
        RETURNING documents.id, documents.data, documents.event_txid
      ), cd AS (
        ${counterDelta(projectId, collectionId, { dataSize: sql`(SELECT size FROM change)`, eventsSize: sql`(SELECT coalesce(sum(size), 0) FROM input)` }, sql`EXISTS (SELECT 1 FROM d)`)}
      ), ev AS (
        INSERT INTO document_events (project_id, collection_id, document_id, kind, after, size, txid)
        SELECT ${projectId}, ${collectionId}, d.id, 'updated', d.data, input.size, d.event_txid FROM d JOIN input ON input.id = d.id ORDER BY input.n
      )
      SELECT (SELECT count(*) FROM d) AS updated, ${guard} AS fresh`,
      db,
    ),
  );
  if (row && row.updated > 0) {
    onCommit(db, signalOutboxCommit);
    for (const { before, after } of changes) await releaseDroppedFiles(db, projectId, collectionId, after._id as string, before, after);
    return row.updated;
  }
  if (!row?.fresh) throw new StaleCollectionState();
  throw paymentRequired(LIMIT_MESSAGE);
}

/**
 * Deletes the collection's documents matching `where` (over `documents` columns, `data` the
 * JSONB), with their files: file rows go, their blobs are queued in `blob_deletions`, sizes are
 * subtracted. With `keepFiles` (the project's `delete_files` off) the files stay, marked
 * orphaned for the orphan sweep. Returns the deleted documents.
 */
export async function deleteDocumentsWhere(
  db: Queryable,
  projectId: string,
  collectionId: string,
  where: Sql,
  options: { keepFiles?: boolean } = {},
): Promise<Doc[]> {
  const files = options.keepFiles
    ? sql`f AS (
      UPDATE files SET orphaned_at = now() WHERE project_id = ${projectId} AND collection_id = ${collectionId} AND document_id IN (SELECT id FROM d)
      RETURNING blob_key, 0::bigint AS size
    )`
    : sql`f AS (
      DELETE FROM files WHERE project_id = ${projectId} AND collection_id = ${collectionId} AND document_id IN (SELECT id FROM d)
      RETURNING *
    ), bd AS (
      INSERT INTO blob_deletions (blob_key) SELECT blob_key FROM f
    ), fe AS (
      INSERT INTO document_events (project_id, collection_id, document_id, kind, before, txid)
      SELECT ${projectId}, ${FILES_COLLECTION}, f.id, 'deleted', ${raw(fileRecordSql("f"))}, ${FILE_DELETED_TXID} FROM f
    )`;
  const rows = await query<{ data: Doc }>(
    sql`WITH d AS (
      DELETE FROM documents WHERE project_id = ${projectId} AND collection_id = ${collectionId} AND ${where}
      RETURNING id, data, ${NEXT_EVENT_TXID} AS event_txid
    ), ev AS (
      INSERT INTO document_events (project_id, collection_id, document_id, kind, before, size, txid)
      SELECT ${projectId}, ${collectionId}, id, 'deleted', data, octet_length(data::text), event_txid FROM d
    ), ${files}, cd AS (
      ${counterDelta(
        projectId,
        collectionId,
        {
          documents: sql`-(SELECT count(*) FROM d)`,
          dataSize: sql`-(SELECT coalesce(sum(octet_length(data::text)), 0) FROM d)`,
          eventsSize: sql`(SELECT coalesce(sum(octet_length(data::text)), 0) FROM d)`,
          filesSize: sql`-(SELECT coalesce(sum(size), 0) FROM f)`,
        },
        sql`EXISTS (SELECT 1 FROM d)`,
      )}
    )
    SELECT data FROM d`,
    db,
  );
  if (rows.length) onCommit(db, signalOutboxCommit);
  if (!options.keepFiles && rows.some((r) => fileIdsIn(r.data).size > 0)) onCommit(db, () => scheduleBlobDeletions(projectId));
  return rows.map((r) => r.data);
}

async function run(db: Queryable, statement: Sql): Promise<{ data: Doc | null; fresh: boolean }> {
  try {
    // Prepared: planning this statement cost more than running it (creates +35 %, docs/performance.md).
    return (await queryOne<{ data: Doc | null; fresh: boolean }>(statement, db, { prepared: true }))!;
  } catch (error) {
    throw uniqueViolation(error) ?? error;
  }
}

/** A unique violation of a collection index (named `di_...`) gets its own message. */
export function uniqueViolation(error: unknown): Error | undefined {
  const e = error as { code?: string; constraint?: string };
  if (e?.code !== "23505") return undefined;
  if (e.constraint?.startsWith("di_")) return conflict("Document violates a unique index of the collection.");
  return conflict(ID_TAKEN);
}
