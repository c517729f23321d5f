import { sql } from "../db/sql";
import { queryOne } from "../db/query";
import type { ProjectScope } from "../collections/collection";
import { AppError } from "../errors";
import { StaleCollectionState, withFreshState } from "./collection-state";
import { newDocumentId } from "./document-id";
import { ID_TAKEN, insertDocument, replaceDocument } from "./document-statements";
import { prepareDocument } from "./prepare-document";
import { documentWriteTransaction } from "./write-transaction";

type Doc = Record<string, unknown>;

/**
 * Saves a whole document under `id` (PUT): creates it (`created: true`, 201) or replaces it
 * (200). `authorize` is told which of the two it is before anything is written.
 */
export async function saveDocument(
  scope: ProjectScope,
  input: { collectionId: string; id: string; body: Doc; authorize?: (action: "write" | "update") => void },
): Promise<{ doc: Doc; created: boolean }> {
  const id = newDocumentId(input.body._id, input.id);
  return withFreshState(scope.projectId, input.collectionId, (state) =>
    documentWriteTransaction(scope, state.schema, async (client) => {
      const before = await lockDocument(client, scope.projectId, input.collectionId, id);
      input.authorize?.(before ? "update" : "write");
      const doc = await prepareDocument(scope.projectId, input.collectionId, state, id, input.body, before, { scope, db: client });
      if (!before) {
        try {
          return { doc: await insertDocument(client, scope, input.collectionId, state, doc), created: true };
        } catch (error) {
          // A concurrent save created it after our lock found nothing: a save, so again (it replaces).
          if (error instanceof AppError && error.message === ID_TAKEN) throw new StaleCollectionState();
          throw error;
        }
      }
      return { doc: await replaceDocument(client, scope, input.collectionId, state, before, doc), created: false };
    }),
  );
}

/** Reads a document FOR UPDATE inside a transaction (undefined when there is none). */
export async function lockDocument(client: Parameters<typeof queryOne>[1], projectId: string, collectionId: string, id: string): Promise<Doc | undefined> {
  const row = await queryOne<{ data: Doc }>(
    sql`SELECT data FROM documents WHERE project_id = ${projectId} AND collection_id = ${collectionId} AND id = ${id} FOR UPDATE`,
    client,
  );
  return row?.data;
}
