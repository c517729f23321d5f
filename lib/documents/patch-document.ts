import { validationError } from "../errors";
import type { ProjectScope } from "../collections/collection";
import { mergePatch } from "./merge-patch";
import { updateDocument } from "./update-document";

/** PATCH: a JSON merge patch (RFC 7396) on a stored document; `_id` cannot change. */
export async function patchDocument(
  scope: ProjectScope,
  input: { collectionId: string; id: string; patch: Record<string, unknown> },
): Promise<Record<string, unknown>> {
  if ("_id" in input.patch && input.patch._id !== input.id)
    throw validationError("Validation error", [{ property: "_id", message: "cannot be changed" }]);
  return updateDocument(scope, {
    collectionId: input.collectionId,
    id: input.id,
    change: (before) => mergePatch(before, input.patch) as Record<string, unknown>,
  });
}
