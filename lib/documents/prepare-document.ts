import { validationError } from "../errors";
import { hasProcessors, processDocument, type ProcessingContext } from "../processors/process-document";
import type { CollectionState } from "./collection-state";
import { checkImmutable, normalizeDatetimes, schemaFor } from "./document-schema";

/**
 * The document as it will be stored: `_id` first, run through the schema's processors (given
 * `processing`: the write's scope and transaction), validated against the collection's schema
 * (422 naming each property), datetimes normalized, immutables checked against `before`.
 */
export async function prepareDocument(
  projectId: string,
  collectionId: string,
  state: CollectionState,
  id: string,
  body: Record<string, unknown>,
  before?: Record<string, unknown>,
  processing?: Omit<ProcessingContext, "collectionId">,
): Promise<Record<string, unknown>> {
  const { _id: _ignored, ...rest } = body;
  let doc: Record<string, unknown> = { _id: id, ...rest };
  if (!state.schema) return doc;
  // Processors first (CONTRACT §7): what is validated and stored is their output.
  if (processing) doc = await processDocument({ ...processing, collectionId }, { schema: state.schema, before, doc });
  else if (hasProcessors(state.schema)) throw new Error("prepareDocument: a schema with processors needs the write's transaction");
  const compiled = schemaFor(projectId, collectionId, state.schema);
  const errors = compiled.validate(doc);
  if (before) errors.push(...checkImmutable(before, doc, compiled));
  if (errors.length) throw validationError("Validation error", errors);
  normalizeDatetimes(doc, compiled);
  return doc;
}
