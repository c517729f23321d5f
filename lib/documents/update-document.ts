import { notFound } from "../errors";
import { checkObjectWidths } from "../query/json-input";
import type { ProjectScope } from "../collections/collection";
import { withFreshState } from "./collection-state";
import { replaceDocument } from "./document-statements";
import { prepareDocument } from "./prepare-document";
import { lockDocument } from "./save-document";
import { documentWriteTransaction } from "./write-transaction";

type Doc = Record<string, unknown>;

/**
 * Changes a stored document with `change(before)` (merge patch, set or unset a property) inside a
 * transaction holding the row; 404 "Document not found." when there is none. The result is
 * validated like any write, and checked for objects past 10,000 keys: a merge can grow one past
 * the bound its body kept (other writes store a checked body, or an update's checked result).
 */
export async function updateDocument(
  scope: ProjectScope,
  input: { collectionId: string; id: string; change: (before: Doc) => Doc },
): Promise<Doc> {
  return withFreshState(scope.projectId, input.collectionId, (state) =>
    documentWriteTransaction(scope, state.schema, async (client) => {
      const before = await lockDocument(client, scope.projectId, input.collectionId, input.id);
      if (!before) throw notFound(state.exists ? "Document not found." : "Collection not found.");
      const changed = input.change(structuredClone(before));
      checkObjectWidths(changed, "The document");
      const doc = await prepareDocument(scope.projectId, input.collectionId, state, input.id, changed, before, { scope, db: client });
      return replaceDocument(client, scope, input.collectionId, state, before, doc);
    }),
  );
}
