/**
 * The two file formats of a collection's import and export (JSON Lines and CSV), as pure
 * functions over text: encoders for one record at a time, and incremental decoders that take the
 * body chunk by chunk and yield records as soon as they are complete, so neither side ever holds
 * more than one record (plus the chunk in hand).
 */
export type TransferFormat = "jsonl" | "csv";

export const TRANSFER_FORMATS: readonly TransferFormat[] = ["jsonl", "csv"];

type Doc = Record<string, unknown>;
type Schema = Record<string, unknown>;

/** One document per line, `_id` first (JSONB keeps keys in its own order). */
export function jsonLine(doc: Doc): string {
  return `${JSON.stringify({ _id: doc._id, ...doc })}\n`;
}

/**
 * The CSV columns: `_id`, then the schema's top-level properties in `position` order (declaration
 * order among equals), then keys of `sample` (the first batch) the schema does not name, in order
 * of appearance. Keys first seen after the sample are not exported (JSON Lines keeps everything).
 */
export function csvColumns(schema: Schema | null, sample: Doc[]): string[] {
  const properties = (schema?.properties ?? {}) as Record<string, { position?: unknown }>;
  const declared = Object.entries(properties)
    .map(([name, definition], index) => ({ name, index, position: typeof definition?.position === "number" ? definition.position : Number.POSITIVE_INFINITY }))
    .sort((a, b) => a.position - b.position || a.index - b.index)
    .map((p) => p.name);
  const columns = new Set(["_id", ...declared]);
  for (const doc of sample) for (const key of Object.keys(doc)) columns.add(key);
  return [...columns];
}

/** One CSV record (RFC 4180: CRLF, fields quoted when they hold a quote, comma or line break). */
export function csvRecord(fields: readonly string[]): string {
  return `${fields.map(csvField).join(",")}\r\n`;
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A stored value as CSV text: strings as they are, numbers and booleans as text, null and absent empty, objects and arrays as JSON. */
export function csvValue(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/**
 * A CSV cell read back, typed by the schema's declared type of its column: `integer`/`number`
 * parsed as numbers, `boolean` from `true`/`false` (any case), `object`/`array` from JSON text,
 * anything else (and any column the schema does not type) kept as the string. A cell that does
 * not parse as its type stays a string, so schema validation reports it like any bad value.
 * An empty cell is an absent property (`undefined`).
 */
export function csvCell(text: string, definition: unknown): unknown {
  if (text === "") return undefined;
  const types = declaredTypes(definition);
  if (types.has("integer") && /^-?\d+$/.test(text.trim())) return Number(text);
  if (types.has("number") && /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(text)) return Number(text);
  if (types.has("boolean") && /^(true|false)$/i.test(text.trim())) return text.trim().toLowerCase() === "true";
  if ((types.has("object") || types.has("array")) && /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  if (types.has("null") && text === "null") return null;
  return text;
}

function declaredTypes(definition: unknown): Set<string> {
  const type = (definition as { type?: unknown } | undefined)?.type;
  if (typeof type === "string") return new Set([type]);
  if (Array.isArray(type)) return new Set(type.filter((t): t is string => typeof t === "string"));
  return new Set();
}

/** A record too long to hold: the import stops (a line or record over this is not a document). */
export class RecordTooLarge extends Error {}

/**
 * Splits text fed in chunks into lines (LF or CRLF), each with its 1-based line number. Blank
 * lines are skipped but counted, so numbers match what an editor shows.
 */
export class LineSplitter {
  private pending = "";
  private line = 0;

  constructor(private readonly maxChars: number) {}

  *push(chunk: string): Generator<{ line: number; text: string }> {
    let text = this.pending + chunk;
    let start = 0;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      this.line++;
      const line = text.slice(start, text[end - 1] === "\r" ? end - 1 : end);
      start = end + 1;
      if (line.length > this.maxChars) throw new RecordTooLarge(`Line ${this.line} is longer than ${this.maxChars} characters`);
      if (line.trim() !== "") yield { line: this.line, text: line };
    }
    text = text.slice(start);
    if (text.length > this.maxChars) throw new RecordTooLarge(`Line ${this.line + 1} is longer than ${this.maxChars} characters`);
    this.pending = text;
  }

  *end(): Generator<{ line: number; text: string }> {
    const rest = this.pending;
    this.pending = "";
    if (rest.trim() !== "") yield { line: ++this.line, text: rest.endsWith("\r") ? rest.slice(0, -1) : rest };
  }
}

/**
 * An incremental RFC 4180 parser: quoted fields may hold commas, doubled quotes and line breaks;
 * records end with CRLF, LF or CR. Lenient where the RFC is silent: a quote inside an unquoted field
 * is kept as a character. Blank lines yield nothing. Each record comes with its 0-based index
 * (the header is record 0).
 */
export class CsvParser {
  private field = "";
  private fields: string[] = [];
  private quoted = false;
  /** In a quoted field, a quote was just read: either a doubled quote or the field's end. */
  private quoteSeen = false;
  /** The field started with a quote (so it may not be "blank"). */
  private fieldQuoted = false;
  private size = 0;
  private index = 0;

  constructor(private readonly maxChars: number) {}

  *push(chunk: string): Generator<{ index: number; fields: string[] }> {
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk[i];
      if (this.quoted) {
        if (this.quoteSeen) {
          this.quoteSeen = false;
          if (ch === '"') {
            this.field += '"';
            continue;
          }
          this.quoted = false; // the closing quote: fall through to the unquoted rules
        } else if (ch === '"') {
          this.quoteSeen = true;
          continue;
        } else {
          // Copy the run up to the next quote at once: long quoted cells stay linear.
          const next = chunk.indexOf('"', i);
          const stop = next === -1 ? chunk.length : next;
          this.field += chunk.slice(i, stop);
          this.grow(stop - i);
          i = stop - 1;
          continue;
        }
      }
      if (ch === ",") {
        this.fields.push(this.field);
        this.field = "";
        this.fieldQuoted = false;
      } else if (ch === "\n" || ch === "\r") {
        // CRLF, LF or a lone CR: the blank record between CR and LF is skipped like a blank line.
        const record = this.finishRecord();
        if (record) yield record;
      } else if (ch === '"' && this.field === "" && !this.fieldQuoted) {
        this.quoted = true;
        this.fieldQuoted = true;
      } else {
        this.field += ch;
        this.grow(1);
      }
    }
  }

  *end(): Generator<{ index: number; fields: string[] }> {
    this.quoted = false;
    this.quoteSeen = false;
    const record = this.finishRecord();
    if (record) yield record;
  }

  private finishRecord(): { index: number; fields: string[] } | undefined {
    this.fields.push(this.field);
    const fields = this.fields;
    const blank = fields.length === 1 && fields[0] === "" && !this.fieldQuoted;
    this.fields = [];
    this.field = "";
    this.fieldQuoted = false;
    this.size = 0;
    if (blank) return undefined;
    return { index: this.index++, fields };
  }

  private grow(n: number): void {
    this.size += n;
    if (this.size > this.maxChars) throw new RecordTooLarge(`CSV record ${this.index} is longer than ${this.maxChars} characters`);
  }
}
