import { sql } from "../db/sql";
import { queryOne } from "../db/query";
import { notFound } from "../errors";
import type { ProjectScope } from "../collections/collection";

/** Reads one document by id: one round trip, 404 for a missing collection or document. */
export async function getDocument(
  scope: ProjectScope,
  input: { collectionId: string; id: string },
): Promise<{ doc: Record<string, unknown>; schema: Record<string, unknown> | null }> {
  const row = await queryOne<{ schema: Record<string, unknown> | null; data: Record<string, unknown> | null }>(
    sql`SELECT c.schema, d.data FROM collections c
        LEFT JOIN documents d ON d.project_id = ${scope.projectId} AND d.collection_id = ${input.collectionId} AND d.id = ${input.id}
        WHERE c.project_id = ${scope.projectId} AND c.id = ${input.collectionId}`,
    undefined,
    { prepared: true },
  );
  if (!row) throw notFound("Collection not found.");
  if (!row.data) throw notFound("Document not found.");
  return { doc: row.data, schema: row.schema };
}
