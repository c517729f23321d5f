import { validationError } from "../errors";
import { checkDocumentFileRecords } from "../files/document-file-records";
import { fileRecordsIn, type FileRecord } from "../files/file-record";
import { hasProcessors, processDocument, type ProcessingContext } from "../processors/process-document";
import type { CollectionState } from "./collection-state";
import { checkImmutable, normalizeDatetimes, schemaFor, visit, type CompiledSchema } from "./document-schema";

/**
 * The document as it will be stored: `_id` first, run through the schema's processors (given
 * `processing`: the write's scope and transaction), validated against the collection's schema
 * (422 naming each property), datetimes normalized, immutables checked against `before`.
 * File records in the body are checked first: only those `before` holds or the write `uploaded`,
 * unchanged (lib/files/document-file-records.ts).
 */
export async function prepareDocument(
  projectId: string,
  collectionId: string,
  state: CollectionState,
  id: string,
  body: Record<string, unknown>,
  before?: Record<string, unknown>,
  processing?: Omit<ProcessingContext, "collectionId">,
  uploaded: FileRecord[] = [],
): Promise<Record<string, unknown>> {
  const { _id: _ignored, ...rest } = body;
  let doc: Record<string, unknown> = { _id: id, ...rest };
  const compiled = state.schema ? schemaFor(projectId, collectionId, state.schema) : undefined;
  const own = [...(before ? fileRecordsIn(before) : []), ...uploaded];
  const target = { projectId, collectionId, documentId: id };
  // What the client sent, before a processor reads a file it names.
  await checkDocumentFileRecords(processing?.db, target, doc, own, compiled?.files ?? []);
  if (!state.schema || !compiled) return doc;
  // Processors first (CONTRACT §7): what is validated and stored is their output.
  if (hasProcessors(state.schema)) {
    if (!processing) throw new Error("prepareDocument: a schema with processors needs the write's transaction");
    doc = await processDocument({ ...processing, collectionId }, { schema: state.schema, before, doc });
    // And what they made: a vendor's answer is no more a file record of this document than a client's.
    await checkDocumentFileRecords(processing.db, target, doc, own, compiled.files);
  }
  storeEmbedsAsKeys(doc, compiled);
  const errors = compiled.validate(doc);
  if (before) errors.push(...checkImmutable(before, doc, compiled));
  if (errors.length) throw validationError("Validation error", errors);
  normalizeDatetimes(doc, compiled);
  return doc;
}

/**
 * An `embed` is stored as the other document's key, and reads answer the document itself: a
 * document read and written back (the usual edit) carries that document, which stands for its
 * key. Anything else there is left for the schema to refuse.
 */
function storeEmbedsAsKeys(doc: Record<string, unknown>, compiled: CompiledSchema): void {
  for (const { path, field } of compiled.embeds)
    visit(doc, path, (value, set) => {
      if (!value || typeof value !== "object" || Array.isArray(value) || !Object.hasOwn(value, field)) return;
      const key = (value as Record<string, unknown>)[field];
      if (typeof key === "string" || typeof key === "number") set(key);
    });
}
