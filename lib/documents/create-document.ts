import { pool } from "../db/pool";
import { hasProcessors } from "../processors/process-document";
import type { ProjectScope } from "../collections/collection";
import { withFreshState } from "./collection-state";
import { newDocumentId } from "./document-id";
import { insertDocument } from "./document-statements";
import { prepareDocument } from "./prepare-document";
import { documentWriteTransaction } from "./write-transaction";

/**
 * Creates a document (POST, 201): one statement when the collection's schema is cached. `id` is
 * the path's id (`POST .../documents/<id>/`), else the body's `_id`, else a generated one.
 */
export async function createDocument(
  scope: ProjectScope,
  input: { collectionId: string; body: Record<string, unknown>; id?: string },
): Promise<Record<string, unknown>> {
  const id = newDocumentId(input.body._id, input.id);
  return withFreshState(scope.projectId, input.collectionId, async (state) => {
    // Processors may store files: their rows and the document then commit together.
    if (hasProcessors(state.schema))
      return documentWriteTransaction(scope, state.schema, async (client) => {
        const doc = await prepareDocument(scope.projectId, input.collectionId, state, id, input.body, undefined, { scope, db: client });
        return insertDocument(client, scope, input.collectionId, state, doc);
      });
    const doc = await prepareDocument(scope.projectId, input.collectionId, state, id, input.body);
    return insertDocument(pool(), scope, input.collectionId, state, doc);
  });
}
