import { raw, sql } from "../db/sql";
import { queryOne, transaction } from "../db/query";
import { notFound } from "../errors";
import type { ProjectScope } from "../collections/collection";
import { compileFilter, parseFilter } from "../query";
import { deleteDocumentsWhere } from "./document-statements";
import { documentFilter } from "./collection-state";

/** Delete by criteria (`X-Action: Delete {filter}`): no filter deletes every document. */
export async function deleteDocuments(
  scope: ProjectScope,
  input: { collectionId: string; filter: Record<string, unknown> | undefined },
): Promise<number> {
  const filter = await documentFilter(scope.projectId, input.collectionId, input.filter);
  const where = filter && Object.keys(filter).length ? compileFilter(parseFilter(filter), raw("data")) : raw("TRUE");
  return transaction(async (client) => {
    const exists = await queryOne(sql`SELECT 1 FROM collections WHERE project_id = ${scope.projectId} AND id = ${input.collectionId}`, client);
    if (!exists) throw notFound("Collection not found.");
    return (await deleteDocumentsWhere(client, scope.projectId, input.collectionId, where, { keepFiles: scope.deleteFiles === false })).length;
  });
}
