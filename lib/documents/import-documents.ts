import { AppError, badRequest, fromDatabaseError, payloadTooLarge } from "../errors";
import type { ProjectScope } from "../collections/collection";
import { checkJsonInput, checkPropertyName } from "../query/json-input";
import { collectionState } from "./collection-state";
import { createDocument } from "./create-document";
import { saveDocument } from "./save-document";
import { CsvParser, csvCell, LineSplitter, RecordTooLarge, type TransferFormat } from "./transfer-format";

type Doc = Record<string, unknown>;

export type ImportMode = "create" | "upsert";
export const IMPORT_MODES: readonly ImportMode[] = ["create", "upsert"];

/** Rows written at once: enough to overlap round trips, few enough to leave the pool to others. */
export const IMPORT_CONCURRENCY = 4;
/** Row errors listed in the answer; the count (`failed`) is always exact. */
export const MAX_REPORTED_ERRORS = 1000;

export interface RowError {
  row: number;
  _id?: string;
  message: string;
  errors?: { property: string | null; message: string }[];
}

export interface ImportReport {
  created: number;
  updated: number;
  failed: number;
  errors: RowError[];
  errors_truncated?: true;
}

export interface ImportInput {
  collectionId: string;
  format: TransferFormat;
  mode: ImportMode;
  body: AsyncIterable<Uint8Array>;
  /** The body's declared length, when it has one: over `maxBytes` it is refused before anything is read. */
  declaredLength?: number;
  maxBytes: number;
  /** The longest line or record (a document, not a file: the JSON body limit); past it the import stops with 413. */
  maxRecordChars: number;
}

/**
 * Imports a body of JSON Lines or CSV into a collection, row by row through the same write path
 * as the API's `POST` (`mode: create`: a taken `_id` is a row error) or `PUT` (`mode: upsert`:
 * a row with an `_id` replaces the stored document), so schema validation, processors, limits,
 * counters, outbox events (hooks, feed) are exactly those of single writes. A few rows are in
 * flight at once; rows naming the same `_id` are written in their order.
 *
 * The body is read chunk by chunk: a record is parsed, written, and forgotten. A row that fails
 * (bad JSON, not an object, schema violation, taken `_id`, ...) is counted and listed with its
 * 1-based row number (JSON Lines: the line; CSV: the record after the header) and the import goes
 * on. Bodies over `maxBytes` stop with 413 (at once when declared; otherwise once crossed, after
 * the rows before that point were written: the message says how many).
 */
export async function importDocuments(scope: ProjectScope, input: ImportInput): Promise<ImportReport> {
  if (input.declaredLength !== undefined && input.declaredLength > input.maxBytes)
    throw payloadTooLarge(`Request body is too large (at most ${input.maxBytes} bytes)`);
  const report = new Report();
  const writer = new RowWriter(scope, input, report);
  const schema = (await collectionState(scope.projectId, input.collectionId)).schema;
  const bytesCheck = new InvalidUtf8Check();
  const decoder = new TextDecoder("utf-8");
  const parse = input.format === "csv" ? csvRows(schema, input.maxRecordChars, bytesCheck) : jsonRows(input.maxRecordChars, bytesCheck);
  let bytes = 0;
  let first = true;
  try {
    for await (const chunk of input.body) {
      bytes += chunk.byteLength;
      if (bytes > input.maxBytes) {
        await writer.drain();
        throw payloadTooLarge(`Request body is too large (at most ${input.maxBytes} bytes): the import stopped there, ${report.summary()}`);
      }
      bytesCheck.see(chunk);
      let text = decoder.decode(chunk, { stream: true });
      if (first && text.length > 0) {
        // A byte order mark (spreadsheets write one) is not part of the first column's name.
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        first = false;
      }
      for (const row of parse.push(text)) await writer.submit(row);
    }
    bytesCheck.end();
    for (const row of parse.push(decoder.decode())) await writer.submit(row);
    for (const row of parse.end()) await writer.submit(row);
    await writer.drain();
  } catch (error) {
    await writer.drain();
    if (error instanceof RecordTooLarge) throw payloadTooLarge(`${error.message}: the import stopped there, ${report.summary()}`);
    throw error;
  }
  return report.result();
}

/**
 * The body is decoded leniently (an invalid byte becomes U+FFFD) so one bad row does not stop the
 * import, but a row must not be stored altered: a strict decoder beside it notes that the body
 * held invalid UTF-8, and from then on a record whose text holds U+FFFD is a row error. (A JSON
 * line may spell it `\ufffd`; only a CSV cell holding the character itself, in a body with
 * invalid bytes, is refused with them.)
 */
class InvalidUtf8Check {
  #strict = new TextDecoder("utf-8", { fatal: true });
  #seen = false;

  see(chunk: Uint8Array): void {
    if (this.#seen) return;
    try {
      this.#strict.decode(chunk, { stream: true });
    } catch {
      this.#seen = true;
    }
  }

  end(): void {
    if (this.#seen) return;
    try {
      this.#strict.decode();
    } catch {
      this.#seen = true;
    }
  }

  /** Why a record of this text is refused, if it is. */
  refusal(texts: readonly string[]): AppError | undefined {
    return this.#seen && texts.some((text) => text.includes("\ufffd")) ? badRequest("Not valid UTF-8: the row holds bytes that are no text") : undefined;
  }
}

/** The `_id` of a JSON line, when it has a string one (for the row's error). */
function idIn(text: string): string | undefined {
  try {
    const value = JSON.parse(text) as { _id?: unknown } | null;
    return typeof value?._id === "string" ? value._id : undefined;
  } catch {
    return undefined;
  }
}

/** A parsed row: the document, or why the record is not one. */
type Row = { row: number; doc: Doc } | { row: number; error: AppError; id?: string };

interface RowParser {
  push(text: string): Iterable<Row>;
  end(): Iterable<Row>;
}

function jsonRows(maxChars: number, bytes: InvalidUtf8Check): RowParser {
  const lines = new LineSplitter(maxChars);
  const rows = function* (source: Iterable<{ line: number; text: string }>): Generator<Row> {
    for (const { line, text } of source) {
      const refused = bytes.refusal([text]);
      yield refused ? { row: line, error: refused, id: idIn(text) } : jsonRow(line, text);
    }
  };
  return { push: (text) => rows(lines.push(text)), end: () => rows(lines.end()) };
}

function jsonRow(row: number, text: string): Row {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { row, error: badRequest("Malformed JSON") };
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return { row, error: badRequest("A line must be a JSON object") };
  const id = typeof (value as Doc)._id === "string" ? ((value as Doc)._id as string) : undefined;
  try {
    checkJsonInput(value, "Document");
  } catch (error) {
    return { row, error: error as AppError, id };
  }
  return { row, doc: value as Doc };
}

/**
 * CSV: the first record names the columns (`_id` among them or not: ids are then generated).
 * Cells are typed by the collection's schema (see `csvCell`); an empty cell leaves its property
 * out. A header that cannot name properties (an empty, repeated or `__proto__` name) is a 400
 * before anything is written; a record with another number of fields than the header is a row error.
 */
function csvRows(schema: Doc | null, maxChars: number, bytes: InvalidUtf8Check): RowParser {
  const parser = new CsvParser(maxChars);
  const properties = (schema?.properties ?? {}) as Record<string, unknown>;
  let header: string[] | undefined;
  const rows = function* (source: Iterable<{ index: number; fields: string[] }>): Generator<Row> {
    for (const { index, fields } of source) {
      if (!header) {
        header = readHeader(fields);
        continue;
      }
      const refused = bytes.refusal(fields);
      yield refused ? { row: index, error: refused, id: fields[header.indexOf("_id")] || undefined } : csvRow(index, fields, header, properties);
    }
  };
  return { push: (text) => rows(parser.push(text)), end: () => rows(parser.end()) };
}

function readHeader(fields: string[]): string[] {
  const seen = new Set<string>();
  fields.forEach((name, i) => {
    if (name === "") throw badRequest(`CSV header: column ${i + 1} has no name`);
    checkPropertyName(name, "CSV header");
    if (seen.has(name)) throw badRequest(`CSV header: column ${JSON.stringify(name)} appears twice`);
    seen.add(name);
  });
  return fields;
}

function csvRow(row: number, fields: string[], header: string[], properties: Record<string, unknown>): Row {
  const idColumn = header.indexOf("_id");
  const id = idColumn >= 0 && fields[idColumn] ? fields[idColumn] : undefined;
  if (fields.length !== header.length)
    return { row, id, error: badRequest(`The record has ${fields.length} fields, the header ${header.length}`) };
  const doc: Doc = {};
  header.forEach((name, i) => {
    const value = name === "_id" ? fields[i] || undefined : csvCell(fields[i], Object.hasOwn(properties, name) ? properties[name] : undefined);
    if (value !== undefined) doc[name] = value;
  });
  try {
    checkJsonInput(doc, "Document");
  } catch (error) {
    return { row, id, error: error as AppError };
  }
  return { row, doc };
}

/** Writes rows a few at a time, in order per `_id`, recording each outcome. */
class RowWriter {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly lastById = new Map<string, Promise<void>>();

  constructor(
    private readonly scope: ProjectScope,
    private readonly input: ImportInput,
    private readonly report: Report,
  ) {}

  async submit(parsed: Row): Promise<void> {
    if ("error" in parsed) {
      this.report.fail(parsed.row, parsed.id, parsed.error);
      return;
    }
    while (this.inFlight.size >= IMPORT_CONCURRENCY) await Promise.race(this.inFlight);
    const id = typeof parsed.doc._id === "string" ? parsed.doc._id : undefined;
    const previous = id === undefined ? undefined : this.lastById.get(id);
    const task: Promise<void> = (async () => {
      if (previous) await previous;
      await this.write(parsed.row, parsed.doc, id);
    })().finally(() => {
      this.inFlight.delete(task);
      if (id !== undefined && this.lastById.get(id) === task) this.lastById.delete(id);
    });
    this.inFlight.add(task);
    if (id !== undefined) this.lastById.set(id, task);
  }

  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /** Never rejects: every failure becomes a row error. */
  private async write(row: number, body: Doc, id: string | undefined): Promise<void> {
    const { collectionId, mode } = this.input;
    try {
      if (mode === "upsert" && id !== undefined) {
        const { created } = await saveDocument(this.scope, { collectionId, id, body });
        this.report.written(created);
      } else {
        await createDocument(this.scope, { collectionId, body });
        this.report.written(true);
      }
    } catch (error) {
      if (!(error instanceof AppError)) console.error(`import into ${this.scope.projectId}/${collectionId}, row ${row}:`, error);
      this.report.fail(row, id, error);
    }
  }
}

class Report {
  created = 0;
  updated = 0;
  failed = 0;
  private errors: RowError[] = [];
  private truncated = false;

  written(created: boolean): void {
    if (created) this.created++;
    else this.updated++;
  }

  fail(row: number, id: string | undefined, failure: unknown): void {
    this.failed++;
    // A refusal of PostgreSQL's own (a text-indexed value past its bound) says what it is, as on other writes.
    const error = failure instanceof AppError ? failure : (fromDatabaseError(failure) ?? failure);
    const entry: RowError = { row, ...(id !== undefined ? { _id: id } : {}), message: error instanceof AppError ? error.message : "Internal error" };
    if (error instanceof AppError && error.errors?.length) entry.errors = error.errors;
    this.errors.push(entry);
    // Rows finish nearly in order: keep the first ones by row number, within a bounded list.
    if (this.errors.length > 2 * MAX_REPORTED_ERRORS) this.trim();
  }

  summary(): string {
    return `after ${this.created} created, ${this.updated} updated and ${this.failed} failed rows`;
  }

  result(): ImportReport {
    this.trim();
    return {
      created: this.created,
      updated: this.updated,
      failed: this.failed,
      errors: this.errors,
      ...(this.truncated ? { errors_truncated: true as const } : {}),
    };
  }

  private trim(): void {
    this.errors.sort((a, b) => a.row - b.row);
    if (this.errors.length > MAX_REPORTED_ERRORS) {
      this.errors.length = MAX_REPORTED_ERRORS;
      this.truncated = true;
    }
  }
}
