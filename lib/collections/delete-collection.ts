import { sql } from "../db/sql";
import { pool } from "../db/pool";
import { queryOne, transactionOn } from "../db/query";
import { deleteFileRows } from "../files/file-rows";
import { cancelPendingCounters, holdOffCounterCompaction, lockProjectRow } from "../projects/counters";
import { forbidden, notFound } from "../errors";
import { forgetCollectionState } from "../documents/collection-state";
import { deleteDocumentsWhere } from "../documents/document-statements";
import { dropUnwantedIndexes, lockCollectionIndexes } from "./collection-indexes";
import { sweepIndexesSoon } from "./index-sweep";
import { isSystemName } from "./system-collections";

/**
 * Deletes a collection with its documents (each recorded as a `deleted` event) and their files
 * (blobs queued for deletion, sizes subtracted; or kept as orphans with `keepFiles`, see
 * `ProjectScope.deleteFiles`) in one transaction, then its indexes.
 *
 * The indexes go after the commit, with DROP INDEX CONCURRENTLY: a plain DROP INDEX takes the
 * documents table's exclusive lock, which every project's reads and writes would queue behind
 * (and, behind a long statement, for as long as it runs). A concurrent drop waits for such a
 * statement without stopping anyone else, within the request's statement timeout; a drop that does
 * not finish is logged and left to the index sweep, which drops indexes no collection wants.
 */
export async function deleteCollection(projectId: string, id: string, options: { keepFiles?: boolean } = {}): Promise<void> {
  if (isSystemName(id)) throw forbidden("System collections cannot be created, changed or deleted");
  const client = await pool().connect();
  // A connection that may still hold the session lock is closed, not pooled.
  let lockReleased = true;
  try {
    // After any save of this collection still building or dropping its indexes; a save waits for
    // this delete's drops in turn.
    const unlock = await lockCollectionIndexes(client, projectId, id);
    lockReleased = false;
    try {
      await transactionOn(client, async (client) => {
        await holdOffCounterCompaction(client);
        // The project's row before the collection's, as every write of a project with a size
        // limit takes it (lib/documents/write-transaction.ts): no deadlock with them.
        await lockProjectRow(client, projectId);
        const row = await queryOne(sql`SELECT 1 FROM collections WHERE project_id = ${projectId} AND id = ${id} FOR UPDATE`, client);
        if (!row) throw notFound("Collection not found.");
        await deleteDocumentsWhere(client, projectId, id, sql`TRUE`, options);
        if (options.keepFiles)
          await queryOne(sql`UPDATE files SET orphaned_at = now() WHERE project_id = ${projectId} AND collection_id = ${id} AND orphaned_at IS NULL`, client);
        else await deleteFileRows(client, projectId, sql`collection_id = ${id}`);
        await cancelPendingCounters(client, projectId, id);
        await client.query("DELETE FROM collections WHERE project_id = $1 AND id = $2", [projectId, id]);
      });
      // A document written since may have made the collection again: as made by a write it wants
      // no indexes (a save of it waits for the lock held here).
      await dropUnwantedIndexes(client, projectId, id, []).catch((error) => {
        console.error(`collections: dropping the indexes of deleted collection ${projectId}/${id}: ${(error as Error).message}; the index sweep will`);
        sweepIndexesSoon();
      });
    } finally {
      lockReleased = await unlock().then(() => true, () => false);
    }
  } finally {
    client.release(lockReleased ? undefined : true);
    forgetCollectionState(projectId, id);
  }
}
