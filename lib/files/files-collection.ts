import type pg from "pg";
import { checkDocumentId } from "../documents/document-id";
import { query, queryOne, transaction, type Queryable } from "../db/query";
import { pool } from "../db/pool";
import { raw, sql } from "../db/sql";
import { lockDocument } from "../documents/save-document";
import { replaceDocument } from "../documents/document-statements";
import { collectionState } from "../documents/collection-state";
import { prepareDocument } from "../documents/prepare-document";
import type { ProjectScope } from "../collections/collection";
import { badRequest, conflict, notFound, validationError } from "../errors";
import { deleteFileRows, documentFileRows, insertFileRows } from "./file-rows";
import { FILE_COLUMNS, FILES_COLLECTION, fileIdsIn, fileRecord, isFileRecordShape, type FileRecord, type FileRow } from "./file-record";
import type { StagedUploads } from "./staged-uploads";
import { commitBlobs, type CommittedBlobs } from "./upload-files";
import { setOwn } from "../query/json-input";

/**
 * The `_files` system collection (CONTRACT §6): read, list, upload straight into it (one file
 * part named `file`; `collection_id` "_files", `document_id` ""), delete.
 */
const columns = raw(FILE_COLUMNS);

export async function findFile(projectId: string, fileId: string, db?: Queryable): Promise<FileRow | undefined> {
  return queryOne<FileRow>(sql`SELECT ${columns} FROM files WHERE project_id = ${projectId} AND id = ${fileId}`, db);
}

/** The file a document property holds, looked up only among that document's own files. */
export async function findDocumentFile(projectId: string, collectionId: string, documentId: string, fileId: string): Promise<FileRow | undefined> {
  return queryOne<FileRow>(
    sql`SELECT ${columns} FROM files WHERE project_id = ${projectId} AND id = ${fileId} AND collection_id = ${collectionId} AND document_id = ${documentId}`,
  );
}

export async function listFiles(projectId: string): Promise<FileRecord[]> {
  const rows = await query<FileRow>(sql`SELECT ${columns} FROM files WHERE project_id = ${projectId} ORDER BY id`);
  return rows.map(fileRecord);
}

/**
 * A property value as the API shows it: each file record in it, at any depth, replaced by the
 * authoritative record from `files` (fresh `last_access`), so a property path and `_files` answer
 * the same JSON. Anything else is returned unchanged; no query without a record.
 */
export async function currentFileValue(projectId: string, collectionId: string, documentId: string, value: unknown): Promise<unknown> {
  const ids = fileIdsIn(value);
  if (ids.size === 0) return value;
  const rows = await documentFileRows(undefined, projectId, collectionId, documentId, [...ids]);
  return refreshRecords(value, new Map(rows.map((r) => [r.id, r])), documentId);
}

/** `value` with each record whose row (of document `documentId`) is known replaced by that row's record. */
function refreshRecords(value: unknown, rows: Map<string, FileRow>, documentId: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => refreshRecords(item, rows, documentId));
  if (!value || typeof value !== "object") return value;
  if (isFileRecordShape(value)) {
    const row = rows.get(value._id);
    return row && row.document_id === documentId ? fileRecord(row) : value;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) setOwn(out, key, refreshRecords(item, rows, documentId));
  return out;
}

/**
 * Documents as read, with each file record they hold replaced by the record as it is now (seed:
 * the same record whether read through the file's identity or through the document; a document
 * stores the copy written with the upload, whose `last_access` ages). One query for a whole
 * page, none for documents without files.
 */
export async function withCurrentFileRecords<T extends Record<string, unknown>>(projectId: string, collectionId: string, docs: T[]): Promise<T[]> {
  // Each document is walked once: its own file ids, and all of them for the one query.
  const idsOf = docs.map((doc) => fileIdsIn(doc));
  const ids = new Set(idsOf.flatMap((own) => [...own]));
  if (ids.size === 0) return docs;
  const rows = await query<FileRow>(
    sql`SELECT ${columns} FROM files WHERE project_id = ${projectId} AND collection_id = ${collectionId} AND id = ANY(${[...ids]}::text[])`,
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return docs.map((doc, i) => (idsOf[i].size === 0 ? doc : (refreshRecords(doc, byId, doc._id) as T)));
}

/**
 * Uploads into `_files` under `id` (generated when absent). `replace`: an existing `_files`
 * record gets the new bytes (its old blob goes after commit); otherwise an existing id is 409.
 * A file that belongs to a document is replaced through its document, not here (409).
 * `authorize` learns whether this creates or replaces before anything is written.
 */
export async function uploadToFiles(
  scope: { projectId: string; filesSizeLimit: number },
  input: { id?: string; replace: boolean; fields: Record<string, unknown>; uploads: StagedUploads; authorize?: (action: "write" | "update") => void },
): Promise<{ record: FileRecord; created: boolean }> {
  let blobs: CommittedBlobs | undefined;
  try {
    const files = await input.uploads.settle();
    const file = files.find((f) => f.field === "file");
    if (!file) throw badRequest("Part file (a file) is required");
    // Which one would be the record's is anyone's guess: refused, none kept.
    if (files.filter((f) => f.field === "file").length > 1) throw badRequest("Part file is repeated: a _files record holds one file");
    await Promise.all(files.filter((f) => f !== file).map((f) => input.uploads.discardOne(f)));
    const bodyId = input.fields._id;
    if (input.id !== undefined && bodyId !== undefined && bodyId !== input.id)
      throw validationError("Validation error", [{ property: "_id", message: "must match the id in the path" }]);
    const id = input.id ?? (bodyId === undefined ? undefined : checkDocumentId(bodyId));
    if (id !== undefined) checkDocumentId(id);
    const { projectId } = scope;
    blobs = await commitBlobs([{ staged: file, target: { projectId, collectionId: FILES_COLLECTION, documentId: "", property: "", id } }]);
    const committed = blobs;
    const row = committed.rows[0];
    if (id === undefined && scope.filesSizeLimit <= 0) {
      // A fresh server-made id has nothing to replace or conflict with, and an unlimited project
      // takes no lock: the record is one autocommitting statement (see insertFileRows).
      input.authorize?.("write");
      await insertFileRows(pool(), committed.rows, 0, committed.markerIds);
      return { record: committed.records[0], created: true };
    }
    const store = () =>
      transaction(async (client) => {
        const existing = await queryOne<FileRow>(sql`SELECT ${columns} FROM files WHERE project_id = ${projectId} AND id = ${row.id} FOR UPDATE`, client);
        input.authorize?.(existing ? "update" : "write");
        if (existing && (!input.replace || existing.collection_id !== FILES_COLLECTION))
          throw conflict(existing.collection_id === FILES_COLLECTION ? "Document with this _id already exists." : "File belongs to a document; upload it through the document.");
        if (existing) await deleteFileRows(client, projectId, sql`id = ${row.id}`);
        await insertFileRows(client, committed.rows, scope.filesSizeLimit, committed.markerIds);
        return !existing;
      });
    // The lock above holds nothing when the id is free: a concurrent upload of the same id can
    // insert first. A save (PUT) then looks again and replaces it; a create (POST) is a 409 with
    // the same message as when the record was already there. A replace deletes the row and
    // inserts anew, so a waiter can find none again and lose once more: each round one wins.
    for (let attempt = 0; ; attempt++) {
      try {
        return { record: committed.records[0], created: await store() };
      } catch (error) {
        if ((error as { code?: string }).code !== "23505") throw error;
        if (!input.replace || attempt >= 16) throw conflict("Document with this _id already exists.");
      }
    }
  } catch (error) {
    if (blobs) await blobs.rollback();
    await input.uploads.discard();
    throw error;
  }
}

/**
 * Deletes a file record: its bytes go after commit, and the property of the document that held
 * it is unset (array elements removed) in the same transaction.
 */
export async function deleteFile(scope: ProjectScope, fileId: string, authorize?: (row: FileRow) => void): Promise<void> {
  await transaction((client) => deleteFileWith(client, scope, fileId, authorize));
}

/** `deleteFile` inside the caller's transaction (delete by criteria: all of them or none). */
export async function deleteFileWith(client: pg.PoolClient, scope: ProjectScope, fileId: string, authorize?: (row: FileRow) => void): Promise<void> {
  const { projectId } = scope;
  const row = await findFile(projectId, fileId, client);
  if (!row) throw notFound("Document not found.");
  authorize?.(row);
  if (row.collection_id !== FILES_COLLECTION && row.document_id !== "") {
    const before = await lockDocument(client, projectId, row.collection_id, row.document_id);
    // A concurrent delete of the same record held the document's lock before us and took the
    // record with it: this one is a 404, not a second success with a second event.
    if (!(await findFile(projectId, fileId, client))) throw notFound("Document not found.");
    if (before) {
      const { after, state } = await documentWithoutFile(client, scope, row, before);
      // The record goes with the document's write (its file property dropped).
      await replaceDocument(client, { projectId, dataSizeLimit: 0 }, row.collection_id, state, before, after);
    }
  }
  const deleted = await deleteFileRows(client, projectId, sql`id = ${fileId}`);
  // A record of no document: a concurrent delete took it first when this one found none.
  if (deleted.length === 0 && (row.collection_id === FILES_COLLECTION || row.document_id === "")) throw notFound("Document not found.");
}

/**
 * The document that held a file, without it, as the property's own DELETE would write it:
 * deleting the `_files` record unsets the property (CONTRACT §6), so an `immutable` or `required`
 * file property refuses it (422) by either route, and processors that read the file run again
 * (a thumbnail of a deleted photo goes with it).
 */
async function documentWithoutFile(db: pg.PoolClient, scope: ProjectScope, row: FileRow, before: Record<string, unknown>) {
  const without = withoutFile(structuredClone(before), row.id) as Record<string, unknown>;
  const state = await collectionState(scope.projectId, row.collection_id, db);
  const processing = { scope: { ...scope, processOnly: undefined }, db };
  const after = await prepareDocument(scope.projectId, row.collection_id, state, row.document_id, without, before, processing);
  return { after, state };
}

/** The value without any file record of this id: object properties deleted, array elements removed. */
function withoutFile(value: unknown, fileId: string): unknown {
  if (Array.isArray(value)) return value.filter((v) => !(isFileRecordShape(v) && v._id === fileId)).map((v) => withoutFile(v, fileId));
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (isFileRecordShape(v) && v._id === fileId) continue;
    out[key] = withoutFile(v, fileId);
  }
  return out;
}
