import { sql } from "../db/sql";
import { queryOne } from "../db/query";
import { notFound } from "../errors";
import { collectionView, type CollectionRow, type CollectionView } from "./collection";
import { systemCounts } from "./list-collections";
import { systemCollectionId, systemCollectionView } from "./system-collections";

/** One collection (system ones included); 404 "Collection not found.". */
export async function getCollection(projectId: string, id: string): Promise<CollectionView> {
  const system = systemCollectionId(id);
  if (system) return systemCollectionView(system, (await systemCounts(projectId))[system] ?? 0);
  const row = await queryOne<CollectionRow>(
    sql`SELECT id, name, description, schema, indexes, documents_count FROM collections WHERE project_id = ${projectId} AND id = ${id}`,
  );
  if (!row) throw notFound("Collection not found.");
  return collectionView(row);
}
