import { query, transaction } from "../db/query";
import { raw, sql } from "../db/sql";
import { parseDuration } from "../projects/project";
import { deleteFileRows } from "./file-rows";

/**
 * `settings.orphan_files_ttl` (CONTRACT §6). A file becomes an orphan at the moment its document
 * or collection goes while `delete_files` is off: that write sets `orphaned_at` in its own
 * transaction (lib/documents, lib/collections). Other writes never leave orphans: replacing or
 * removing a file property deletes the old file in the same transaction. So the sweep only
 * reads marked rows past the project's TTL, through `files_orphaned_idx`, in batches, never the
 * documents of unmarked files: its cost is the number of files it deletes, not files x document
 * size (the old sweep re-checked every file against its document every minute: 135 s for one
 * document holding 10,000 files).
 *
 * Each batch locks its rows `FOR UPDATE SKIP LOCKED`, so two processes never sweep the same
 * row. A marked file whose document holds its record again (re-created with it) is unmarked
 * instead of deleted; the check reads each candidate document once per batch. An empty TTL
 * ("", the default) never deletes. Files of `_files` itself (document_id "") are never orphans.
 */
export async function sweepOrphanFiles(options: { batch?: number } = {}): Promise<{ deleted: number; kept: number }> {
  const batch = options.batch ?? 500;
  const projects = await query<{ id: string; ttl: string }>(
    sql`SELECT p.id, p.settings->>'orphan_files_ttl' AS ttl FROM projects p
        WHERE coalesce(p.settings->>'orphan_files_ttl', '') <> ''
          AND EXISTS (SELECT 1 FROM files f WHERE f.project_id = p.id AND f.orphaned_at IS NOT NULL)`,
  );
  let deleted = 0;
  let kept = 0;
  for (const project of projects) {
    const ttl = parseDuration(project.ttl) ?? 0;
    if (ttl <= 0) continue;
    for (;;) {
      const done = await transaction(async (client) => {
        const candidates = await query<{ id: string; referenced: boolean }>(
          sql`WITH c AS (
                SELECT f.id, f.collection_id, f.document_id FROM files f
                WHERE f.project_id = ${project.id} AND f.orphaned_at IS NOT NULL
                  AND f.orphaned_at <= now() - ${ttl} * interval '1 millisecond' AND f.collection_id <> '_files'
                ORDER BY f.orphaned_at LIMIT ${batch} FOR UPDATE SKIP LOCKED
              ), refs AS (
                SELECT DISTINCT d.collection_id, d.id AS document_id, r.value #>> '{}' AS file_id
                FROM (SELECT DISTINCT collection_id, document_id FROM c) cd
                JOIN documents d ON d.project_id = ${project.id} AND d.collection_id = cd.collection_id AND d.id = cd.document_id
                CROSS JOIN LATERAL jsonb_path_query(d.data, ${FILE_IDS_PATH}::jsonpath) AS r(value)
              )
              SELECT c.id, EXISTS (SELECT 1 FROM refs WHERE refs.collection_id = c.collection_id AND refs.document_id = c.document_id AND refs.file_id = c.id) AS referenced
              FROM c`,
          client,
        );
        const gone = candidates.filter((c) => !c.referenced).map((c) => c.id);
        const back = candidates.filter((c) => c.referenced).map((c) => c.id);
        if (gone.length) deleted += (await deleteFileRows(client, project.id, sql`id = ANY(${gone}::text[])`)).length;
        if (back.length) await query(sql`UPDATE files SET orphaned_at = NULL WHERE project_id = ${project.id} AND id = ANY(${back}::text[])`, client);
        kept += back.length;
        return candidates.length;
      });
      if (done < batch) break;
    }
  }
  return { deleted, kept };
}

/** Every `_id` of every object in a document (the document's own id among them). */
export const FILE_IDS_PATH = "strict $.** ? (exists(@._id))._id";

/**
 * The safety net for rows edited by hand or a bug: marks the files of documents that are gone or
 * no longer hold their record, and unmarks marked files held again. Linear: each document that
 * has files is walked once (its file ids extracted in one jsonpath pass, then a hash anti-join),
 * never once per file; documents without files are never read. Runs at start-up and hourly
 * (lib/files/file-workers.ts), not every minute.
 */
export async function markUnreferencedFiles(): Promise<{ marked: number; unmarked: number }> {
  // Driven from `files`: documents without files are never read.
  const refs = raw(`refs AS (
      SELECT DISTINCT d.project_id, d.collection_id, d.id AS document_id, r.value #>> '{}' AS file_id
      FROM (SELECT DISTINCT project_id, collection_id, document_id FROM files WHERE collection_id <> '_files') fd
      JOIN documents d ON d.project_id = fd.project_id AND d.collection_id = fd.collection_id AND d.id = fd.document_id
      CROSS JOIN LATERAL jsonb_path_query(d.data, '${FILE_IDS_PATH}') AS r(value)
    )`);
  const held = raw(`EXISTS (SELECT 1 FROM refs WHERE refs.project_id = f.project_id AND refs.collection_id = f.collection_id
      AND refs.document_id = f.document_id AND refs.file_id = f.id)`);
  const marked = await query(
    sql`WITH ${refs} UPDATE files f SET orphaned_at = now() WHERE f.orphaned_at IS NULL AND f.collection_id <> '_files' AND NOT ${held} RETURNING 1`,
  );
  const unmarked = await query(sql`WITH ${refs} UPDATE files f SET orphaned_at = NULL WHERE f.orphaned_at IS NOT NULL AND ${held} RETURNING 1`);
  return { marked: marked.length, unmarked: unmarked.length };
}
