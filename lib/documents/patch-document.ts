import { validationError } from "../errors";
import type { ProjectScope } from "../collections/collection";
import { setOwn } from "../query/json-input";
import { mergePatch } from "./merge-patch";
import { updateDocument } from "./update-document";

type Doc = Record<string, unknown>;

/**
 * How a PATCH body applies (CONTRACT §5): `shallow` (`application/json`, the original service's
 * update) replaces the top-level keys it names and keeps the others; `merge`
 * (`application/merge-patch+json`) is RFC 7396: nested merge, `null` removes.
 */
export type PatchMode = "shallow" | "merge";

/** PATCH on a stored document; `_id` cannot change. */
export async function patchDocument(
  scope: ProjectScope,
  input: { collectionId: string; id: string; patch: Doc; mode: PatchMode },
): Promise<Doc> {
  if ("_id" in input.patch && input.patch._id !== input.id)
    throw validationError("Validation error", [{ property: "_id", message: "cannot be changed" }]);
  return updateDocument(scope, {
    collectionId: input.collectionId,
    id: input.id,
    change: (before) => applyPatch(before, input.patch, input.mode),
  });
}

export function applyPatch(before: Doc, patch: Doc, mode: PatchMode): Doc {
  return mode === "merge" ? (mergePatch(before, patch) as Doc) : shallowPatch(before, patch);
}

/** Top-level keys of `patch` replace those of `before` (own keys only; `null` is a value). */
export function shallowPatch(before: Doc, patch: Doc): Doc {
  const out: Doc = {};
  for (const key of Object.keys(before)) setOwn(out, key, before[key]);
  for (const key of Object.keys(patch)) setOwn(out, key, patch[key]);
  return out;
}

/** The mode a request's `Content-Type` asks for: merge patch only when it says so. */
export function patchModeOf(contentType: string | undefined): PatchMode {
  return /^application\/merge-patch\+json\b/i.test(contentType ?? "") ? "merge" : "shallow";
}
