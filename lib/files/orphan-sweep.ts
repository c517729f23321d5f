import { pool } from "../db/pool";
import { query } from "../db/query";
import { sql } from "../db/sql";
import { parseDuration } from "../projects/project";
import { deleteFileRows } from "./file-rows";

/**
 * `settings.orphan_files_ttl` (CONTRACT §6). Normal writes never leave orphans: deleting a
 * document deletes its files, and replacing or removing a file property deletes the old file, in
 * the same transaction. The sweep is the safety net for anything else (rows edited by hand, a
 * bug): a file attached to a document is marked `orphaned_at` when its document is gone or no
 * longer holds a record with its `_id`, unmarked if it holds it again, and deleted (record,
 * `files_size`, then bytes) once marked for longer than the project's TTL. An empty TTL ("", the
 * default) never deletes. Files of `_files` itself (document_id "") are never orphans.
 */
export async function sweepOrphanFiles(): Promise<{ marked: number; deleted: number }> {
  const referenced = sql`EXISTS (SELECT 1 FROM documents d
      WHERE d.project_id = f.project_id AND d.collection_id = f.collection_id AND d.id = f.document_id
        AND jsonb_path_exists(d.data, 'strict $.** ? (@._id == $id)', jsonb_build_object('id', f.id)))`;
  const marked = await query(
    sql`UPDATE files f SET orphaned_at = now() WHERE f.orphaned_at IS NULL AND f.collection_id <> '_files' AND NOT ${referenced} RETURNING 1`,
  );
  await query(sql`UPDATE files f SET orphaned_at = NULL WHERE f.orphaned_at IS NOT NULL AND ${referenced}`);
  const projects = await query<{ id: string; ttl: string | null }>(
    sql`SELECT p.id, p.settings->>'orphan_files_ttl' AS ttl FROM projects p
        WHERE EXISTS (SELECT 1 FROM files f WHERE f.project_id = p.id AND f.orphaned_at IS NOT NULL)`,
  );
  let deleted = 0;
  for (const project of projects) {
    const ttl = parseDuration(project.ttl ?? "") ?? 0;
    if (ttl <= 0) continue;
    const rows = await deleteFileRows(
      pool(),
      project.id,
      sql`orphaned_at IS NOT NULL AND orphaned_at <= now() - ${ttl} * interval '1 millisecond'`,
    );
    deleted += rows.length;
  }
  return { marked: marked.length, deleted };
}
