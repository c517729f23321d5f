import { sql } from "../db/sql";
import { query } from "../db/query";
import { collectionView, type CollectionRow, type CollectionView } from "./collection";
import { SYSTEM_COLLECTIONS, systemCollectionView } from "./system-collections";
import { documentsCount } from "../projects/counters";

/** Every collection of the project, the system ones first (with `is_system: true`). */
export async function listCollections(projectId: string): Promise<CollectionView[]> {
  const [rows, counts] = await Promise.all([
    query<CollectionRow>(
      sql`SELECT c.id, c.name, c.description, c.schema, c.indexes, ${documentsCount("c")} AS documents_count FROM collections c WHERE c.project_id = ${projectId} ORDER BY c.id`,
    ),
    systemCounts(projectId),
  ]);
  return [...SYSTEM_COLLECTIONS.map((id) => systemCollectionView(id, counts[id] ?? 0)), ...rows.map(collectionView)];
}

/** Documents of the system collections kept in their own tables. */
export async function systemCounts(projectId: string): Promise<Record<string, number>> {
  const [row] = await query<Record<string, number>>(
    sql`SELECT (SELECT count(*) FROM tokens WHERE project_id = ${projectId}) AS "_tokens",
               (SELECT count(*) FROM members WHERE project_id = ${projectId}) AS "_users",
               (SELECT count(*) FROM notifications WHERE project_id = ${projectId}) AS "_notification",
               (SELECT count(*) FROM files WHERE project_id = ${projectId}) AS "_files",
               (SELECT count(*) FROM usage WHERE project_id = ${projectId}) AS "_usage",
               (SELECT count(*) FROM debug_records WHERE project_id = ${projectId}) AS "_debug",
               (SELECT count(*) FROM hooks WHERE project_id = ${projectId}) AS "_hooks",
               (SELECT count(*) FROM hook_deliveries WHERE project_id = ${projectId}) AS "_hooks_history"`,
  );
  return row ?? {};
}
