import { pool } from "../db/pool";
import { sql } from "../db/sql";
import { notFound } from "../errors";
import type { ProjectScope } from "../collections/collection";
import { collectionState } from "./collection-state";
import { deleteDocumentsWhere } from "./document-statements";

/** DELETE one document (and its files): 404 "Document not found." when there is none ("Collection not found." without its collection). */
export async function deleteDocument(scope: ProjectScope, input: { collectionId: string; id: string }): Promise<void> {
  const deleted = await deleteDocumentsWhere(pool(), scope.projectId, input.collectionId, sql`id = ${input.id}`, { keepFiles: scope.deleteFiles === false });
  if (deleted.length === 0) {
    const { exists } = await collectionState(scope.projectId, input.collectionId);
    throw notFound(exists ? "Document not found." : "Collection not found.");
  }
}
