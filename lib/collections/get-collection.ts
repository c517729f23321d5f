import { sql } from "../db/sql";
import { queryOne } from "../db/query";
import { notFound } from "../errors";
import { collectionView, type CollectionRow, type CollectionView } from "./collection";
import { systemCounts } from "./list-collections";
import { systemCollectionId, systemCollectionView } from "./system-collections";
import { documentsCount } from "../projects/counters";

/** One collection (system ones included); 404 "Collection not found.". */
export async function getCollection(projectId: string, id: string): Promise<CollectionView> {
  const system = systemCollectionId(id);
  if (system) return systemCollectionView(system, (await systemCounts(projectId))[system] ?? 0);
  const row = await queryOne<CollectionRow>(
    sql`SELECT c.id, c.name, c.description, c.schema, c.indexes, ${documentsCount("c")} AS documents_count FROM collections c WHERE c.project_id = ${projectId} AND c.id = ${id}`,
  );
  if (!row) throw notFound("Collection not found.");
  return collectionView(row);
}
