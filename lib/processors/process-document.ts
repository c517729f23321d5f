import { Readable } from "node:stream";
import type { ProjectScope } from "../collections/collection";
import { onRollback, type Queryable } from "../db/query";
import { sql } from "../db/sql";
import { badGateway, validationError } from "../errors";
import { CONTENT_TYPE_HEAD_BYTES } from "../files/detect-content-type";
import { fileBlobStore } from "../files/file-blob-store";
import { fileIdsIn, isFileRecordShape, type FileRecord } from "../files/file-record";
import { deleteFileRows, findFileRow, insertFileRows } from "../files/file-rows";
import type { StagedFile } from "../files/staged-uploads";
import { commitBlobs } from "../files/upload-files";
import { MAX_TEXT_BYTES, processorTimeoutMs } from "./processor-limits";
import { overlaps, processorPlan, type PropertyPlan } from "./processor-plan";
import { processorKinds } from "./processor-registry";
import { ProducedFile, type ArgumentSpec, type FileInput, type ProcessorCall, type ProcessorSpec } from "./processor-types";

type Doc = Record<string, unknown>;

/** Whose write this is: the project (with its files limit and `process_only`), the collection, and the write's transaction. */
export interface ProcessingContext {
  scope: ProjectScope;
  collectionId: string;
  /** The client of the write's open transaction: file outputs are recorded in it. */
  db: Queryable;
}

/** True when a collection's schema carries processors (the write then needs a transaction). */
export function hasProcessors(schema: Record<string, unknown> | null): boolean {
  return processorPlan(schema).length > 0;
}

/**
 * Runs the schema's processors on a document about to be written (CONTRACT §7) and returns it
 * as it will be stored. A property's processors run, in order, each on the previous output, when
 * the document is new or the write changed one of their inputs (their own value included), or
 * always when `process_only` names the property (and then only those). Properties run in
 * dependency order, so a property reading another's output sees it.
 *
 * File outputs are stored like uploads: blobs first (announced for deletion should the process
 * die), then their rows and `files_size` in the write's transaction; a rollback removes the
 * blobs. A file the write brought (an upload) that processing replaced (a `resize` of the photo
 * itself) is removed in the same transaction, so only the output stays.
 * Bad input is 422 naming the property; a vendor failure or timeout 502 naming the processor.
 */
export async function processDocument(ctx: ProcessingContext, input: { schema: Record<string, unknown> | null; before?: Doc; doc: Doc }): Promise<Doc> {
  const plan = processorPlan(input.schema);
  if (plan.length === 0) return input.doc;
  const { before, doc } = input;
  const only = ctx.scope.processOnly ? new Set(ctx.scope.processOnly) : undefined;
  const incomingFiles = fileIdsIn(doc);
  const outputs: { property: PropertyPlan; file: ProducedFile }[] = [];

  for (const property of plan) {
    if (only ? !only.has(property.key) : before && !touched(property, before, doc)) continue;
    let value = readPath(doc, property.path);
    for (const spec of property.processors) value = await runProcessor(ctx, property, spec, doc, value);
    if (value instanceof ProducedFile) outputs.push({ property, file: value });
    if (value === undefined || value === null) deletePath(doc, property.path);
    else writePath(doc, property.path, value);
  }

  if (outputs.length) await storeOutputs(ctx, doc, outputs);
  // Uploads of this write that a processor replaced by its output: not kept.
  const consumed = [...incomingFiles].filter((id) => !fileIdsIn(doc).has(id) && !(before && fileIdsIn(before).has(id)));
  if (consumed.length)
    await exclusive(ctx.db, () =>
      deleteFileRows(ctx.db, ctx.scope.projectId, sql`collection_id = ${ctx.collectionId} AND document_id = ${doc._id as string} AND id = ANY(${consumed}::text[])`),
    );
  return doc;
}

const queues = new WeakMap<object, Promise<unknown>>();

/**
 * One statement at a time on a transaction's client: a bulk update processes a few documents at
 * once (mapBounded) on one client, and a pg client must not be given a query while it runs one.
 */
function exclusive<T>(db: Queryable, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(db) ?? Promise.resolve();
  const next = previous.then(work, work);
  queues.set(db, next.catch(() => undefined));
  return next;
}

function touched(property: PropertyPlan, before: Doc, doc: Doc): boolean {
  return [property.path, ...property.inputs].some((path) => !sameJson(fileIdentities(readPath(before, path)), fileIdentities(readPath(doc, path))));
}

/**
 * A file is the same file by its `_id`: a document sent back as read carries its file records
 * with a newer `last_access` (reads show the live record), which is no change of the input.
 */
function fileIdentities(value: unknown): unknown {
  if (isFileRecordShape(value)) return { _id: value._id };
  if (Array.isArray(value)) return value.map(fileIdentities);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fileIdentities(item)]));
  return value;
}

async function runProcessor(ctx: ProcessingContext, property: PropertyPlan, spec: ProcessorSpec, doc: Doc, current: unknown): Promise<unknown> {
  const kind = processorKinds[spec.name];
  const resolve = (arg: ArgumentSpec): unknown => {
    if ("value" in arg) return structuredClone(arg.value);
    if ("property" in arg) return overlaps(arg.property, property.path) && arg.property.length === property.path.length ? current : readPath(doc, arg.property);
    return Object.fromEntries(Object.entries(arg.object).map(([name, child]) => [name, resolve(child)]));
  };
  const args: Record<string, unknown> = Object.create(null);
  for (const [name, arg] of Object.entries(spec.in)) args[name] = resolve(arg);
  if (kind.source && !(kind.source in spec.in)) args[kind.source] = current;

  const invalid = (message: string) => validationError("Validation error", [{ property: property.key, message }]);
  const signal = AbortSignal.timeout(processorTimeoutMs());
  const call: ProcessorCall = {
    name: spec.name,
    property: property.key,
    args,
    signal,
    invalid,
    vendorFailed: (reason) => badGateway(`Processor ${spec.name} of property "${property.key}" failed: ${reason}`),
    text(arg, options) {
      const value = args[arg];
      if (value === undefined || value === null) {
        if (options?.required) throw invalid(`${spec.name}: ${arg} is required`);
        return undefined;
      }
      if (value instanceof ProducedFile || isFileRecordShape(value)) throw invalid(`${spec.name}: ${arg} must be text, not a file`);
      if (typeof value === "number" || typeof value === "boolean") return String(value);
      if (typeof value !== "string") throw invalid(`${spec.name}: ${arg} must be text`);
      if (Buffer.byteLength(value) > MAX_TEXT_BYTES) throw invalid(`${spec.name}: ${arg} is larger than 1 MiB`);
      return value;
    },
    file: (arg) => openFile(ctx, doc, args[arg], () => invalid(`${spec.name}: ${arg} must be a file of this document`)),
  };
  return kind.run(call);
}

/** A file argument: an earlier output of the chain, or a file record of this very document (looked up by its id there). */
async function openFile(ctx: ProcessingContext, doc: Doc, value: unknown, notAFile: () => Error): Promise<FileInput> {
  if (value instanceof ProducedFile) return value;
  if (!isFileRecordShape(value)) throw notAFile();
  const row = await exclusive(ctx.db, () => findFileRow(ctx.db, ctx.scope.projectId, value._id));
  if (!row || row.collection_id !== ctx.collectionId || row.document_id !== doc._id) throw notAFile();
  const store = fileBlobStore();
  const open = async () => {
    const stream = await store.read(row.blob_key);
    if (!stream) throw notAFile();
    return stream;
  };
  return {
    name: row.name,
    contentType: row.content_type,
    size: Number(row.size),
    open,
    async bytes() {
      const chunks: Buffer[] = [];
      for await (const chunk of await open()) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
  };
}

/** Outputs to blobs, then their rows (and `files_size`, 402 past the limit) in the write's transaction. */
async function storeOutputs(ctx: ProcessingContext, doc: Doc, outputs: { property: PropertyPlan; file: ProducedFile }[]): Promise<void> {
  const store = fileBlobStore();
  const staged: StagedFile[] = [];
  try {
    for (const [seq, { property, file }] of outputs.entries())
      staged.push({
        field: property.key,
        name: file.name,
        contentType: file.contentType,
        staged: await store.stage(Readable.from([file.data]), { headBytes: CONTENT_TYPE_HEAD_BYTES }),
        seq,
      });
  } catch (error) {
    await Promise.all(staged.map((s) => store.discard(s.staged).catch(() => undefined)));
    throw error;
  }
  const blobs = await commitBlobs(
    staged.map((s) => ({
      staged: s,
      target: { projectId: ctx.scope.projectId, collectionId: ctx.collectionId, documentId: doc._id as string, property: s.field },
    })),
  );
  try {
    await exclusive(ctx.db, () => insertFileRows(ctx.db, blobs.rows, ctx.scope.filesSizeLimit ?? 0, blobs.markerIds));
  } catch (error) {
    await blobs.rollback();
    throw error;
  }
  onRollback(ctx.db, () => void blobs.rollback());
  outputs.forEach(({ property }, i) => writePath(doc, property.path, blobs.records[i] satisfies FileRecord));
}

/** Own properties only (array elements by index), so a path can never reach `__proto__` or a prototype's members. */
export function readPath(doc: unknown, path: string[]): unknown {
  let node = doc;
  for (const segment of path) {
    if (Array.isArray(node)) {
      if (!/^\d+$/.test(segment) || Number(segment) >= node.length) return undefined;
      node = node[Number(segment)];
    } else if (node && typeof node === "object" && Object.hasOwn(node, segment)) node = (node as Doc)[segment];
    else return undefined;
  }
  return node;
}

function writePath(doc: Doc, path: string[], value: unknown): void {
  let node = doc;
  path.slice(0, -1).forEach((segment, depth) => {
    const next = Object.hasOwn(node, segment) ? node[segment] : undefined;
    // A value the client sent where the output's parent object goes is kept and refused (the
    // schema's 422), never replaced by an object holding the output.
    if (next !== undefined && next !== null && (typeof next !== "object" || Array.isArray(next)))
      throw validationError("Validation error", [{ property: path.slice(0, depth + 1).join("."), message: "must be object" }]);
    if (next === undefined || next === null) Object.defineProperty(node, segment, { value: {}, enumerable: true, writable: true, configurable: true });
    node = node[segment] as Doc;
  });
  Object.defineProperty(node, path[path.length - 1], { value, enumerable: true, writable: true, configurable: true });
}

function deletePath(doc: Doc, path: string[]): void {
  const parent = readPath(doc, path.slice(0, -1));
  if (parent && typeof parent === "object" && !Array.isArray(parent)) delete (parent as Doc)[path[path.length - 1]];
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!a || !b || typeof a !== "object" || typeof b !== "object" || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Doc)[k], (b as Doc)[k]));
}
