import { validationError } from "../errors";
import type { CollectionState } from "./collection-state";
import { checkImmutable, normalizeDatetimes, schemaFor } from "./document-schema";

/**
 * The document as it will be stored: `_id` first, validated against the collection's schema
 * (422 naming each property), datetimes normalized, immutables checked against `before`.
 */
export function prepareDocument(
  projectId: string,
  collectionId: string,
  state: CollectionState,
  id: string,
  body: Record<string, unknown>,
  before?: Record<string, unknown>,
): Record<string, unknown> {
  const { _id: _ignored, ...rest } = body;
  const doc: Record<string, unknown> = { _id: id, ...rest };
  if (!state.schema) return doc;
  const compiled = schemaFor(projectId, collectionId, state.schema);
  const errors = compiled.validate(doc);
  if (before) errors.push(...checkImmutable(before, doc, compiled));
  if (errors.length) throw validationError("Validation error", errors);
  normalizeDatetimes(doc, compiled);
  return doc;
}
