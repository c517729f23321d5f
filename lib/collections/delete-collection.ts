import { sql } from "../db/sql";
import { queryOne, transaction } from "../db/query";
import { deleteFileRows } from "../files/file-rows";
import { cancelPendingCounters, holdOffCounterCompaction } from "../projects/counters";
import { forbidden, notFound } from "../errors";
import { forgetCollectionState } from "../documents/collection-state";
import { deleteDocumentsWhere } from "../documents/document-statements";
import { dropCollectionIndexes, lockCollectionIndexes } from "./collection-indexes";
import { isSystemName } from "./system-collections";

/** How long a collection delete may wait for the documents table's lock to drop its indexes. */
const INDEX_LOCK_TIMEOUT_MS = 250;

/**
 * Deletes a collection with its documents (each recorded as a `deleted` event) and their files
 * (blobs queued for deletion, sizes subtracted; or kept as orphans with `keepFiles`, see
 * `ProjectScope.deleteFiles`) and its indexes, in one transaction.
 */
export async function deleteCollection(projectId: string, id: string, options: { keepFiles?: boolean } = {}): Promise<void> {
  if (isSystemName(id)) throw forbidden("System collections cannot be created, changed or deleted");
  try {
    await transaction(async (client) => {
      // After any save of this collection still building or dropping its indexes.
      await lockCollectionIndexes(client, projectId, id, { xact: true });
      await holdOffCounterCompaction(client);
      const row = await queryOne(sql`SELECT 1 FROM collections WHERE project_id = ${projectId} AND id = ${id} FOR UPDATE`, client);
      if (!row) throw notFound("Collection not found.");
      await deleteDocumentsWhere(client, projectId, id, sql`TRUE`, options);
      if (options.keepFiles)
        await queryOne(sql`UPDATE files SET orphaned_at = now() WHERE project_id = ${projectId} AND collection_id = ${id} AND orphaned_at IS NULL`, client);
      else await deleteFileRows(client, projectId, sql`collection_id = ${id}`);
      await cancelPendingCounters(client, projectId, id);
      // DROP INDEX takes the shared documents table's exclusive lock; queued behind a long
      // statement it would hold up every project's reads and writes queued behind it. It waits
      // at most this long, then the delete is refused (503, nothing changed) instead.
      await client.query(`SET LOCAL lock_timeout = '${INDEX_LOCK_TIMEOUT_MS}ms'`);
      await dropCollectionIndexes(client, projectId, id);
      await client.query("DELETE FROM collections WHERE project_id = $1 AND id = $2", [projectId, id]);
    });
  } finally {
    forgetCollectionState(projectId, id);
  }
}
