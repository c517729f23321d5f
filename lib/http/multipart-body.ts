import type { Readable } from "node:stream";
import busboy from "busboy";
import { badRequest, payloadTooLarge, unsupportedMediaType } from "../errors";
import { MAX_JSON_DEPTH, checkJsonInput, checkJsonString, checkPropertyName, setOwn } from "../query/json-input";
import { JSON_BODY_LIMIT } from "./json-body";
import { refuseEncodedBody } from "./request-body";

/**
 * Streaming reader of `multipart/form-data` document bodies (CONTRACT §5), never `formData()`.
 *
 *   const fields = await readMultipart(c.req.raw, requestBodyStream(c), { onFile(name, filename, stream, info) {...} });
 *
 * - Every part without a filename is a field whose value is a JSON literal (`"text"`, `42`,
 *   `[1,2]`, `{..}`); not JSON: 400 naming the part. A field name repeated: 400.
 * - Part names are property paths, dotted or bracketed: `a.b`, `a[b]` and `a[b][0].c` all work;
 *   a bracketed number is an array index (`phones[0]`, `phones[1]` build an array in index
 *   order; a gap or an index past ARCA_MAX_PARTS is a 400).
 * - Parts with a filename are files: each is handed to `onFile` with its name as a dotted path
 *   (a trailing `[n]` dropped: repeated file parts of one name are the array; other indexes are
 *   array elements, `rows[0].scan` -> `rows.0.scan`) and its readable stream, which the callback
 *   must consume (or `resume()`); its promise is awaited before the reader returns. Without
 *   `onFile`, a file part is a 415 (its bytes are drained). A part with `filename=""` and no
 *   bytes (a form's file input left empty) is no part at all.
 * - The fields returned hold the containers file parts need (`rows: [{}]` for `rows[0].scan`,
 *   `meta: {}` for `meta.avatar`), built and checked for conflicts with the value parts as one
 *   body: a file under a value that is no object (`meta="x"` and the file `meta.avatar`) is 400,
 *   and a multipart PATCH replaces the top-level key a file part names, as a value part's does.
 * - Limits: each field and all fields together at most the JSON body limit (413), at most
 *   ARCA_MAX_PARTS parts and ARCA_MAX_FILES files (400), the assembled value nested at most 64
 *   deep, no `__proto__` name, no NUL (400).
 * Returns the fields object (the legacy `payload` envelope is not used in multipart bodies).
 */
export interface FileInfo {
  filename: string;
  mimeType: string;
  encoding: string;
  /** The `[n]` of a name such as `photos[1]`: the file's place in the property's array. */
  index?: number;
}

export interface MultipartOptions {
  onFile?: (name: string, filename: string, stream: Readable, info: FileInfo) => Promise<void> | void;
  /** Bytes of one field value and of all of them (default: the JSON body limit). */
  fieldSizeLimit?: number;
}

/** ARCA_MAX_PARTS: parts per multipart body (fields and files). */
export const MAX_PARTS = Number(process.env.ARCA_MAX_PARTS || 1000);
/** ARCA_MAX_FILES: file parts per multipart body; each becomes a `_files` record. */
export const MAX_FILES = Number(process.env.ARCA_MAX_FILES || 100);

export function isMultipart(request: Request): boolean {
  return /^multipart\/form-data\b/i.test(request.headers.get("content-type") ?? "");
}

export async function readMultipart(request: Request, body: Readable | undefined, options: MultipartOptions = {}): Promise<Record<string, unknown>> {
  refuseEncodedBody(request.headers);
  const headers = Object.fromEntries(request.headers.entries());
  if (!body) return {};
  const sizeLimit = options.fieldSizeLimit ?? JSON_BODY_LIMIT;
  let parser: busboy.Busboy;
  try {
    // defParamCharset: file names are UTF-8 (busboy's default, latin1, garbles "résumé.pdf").
    parser = busboy({
      headers,
      defParamCharset: "utf8",
      // busboy's partsLimit fires once the limit-th part is read: one more, so exactly
      // ARCA_MAX_PARTS parts pass and the event means "more than" (its filesLimit already does).
      limits: { fieldSize: sizeLimit, fieldNameSize: 1024, parts: MAX_PARTS + 1, files: MAX_FILES },
    });
  } catch {
    throw badRequest("Malformed multipart body");
  }
  const assignments: { name: string; path: Segment[]; value: unknown }[] = [];
  const seen = new Set<string>();
  // A value part and a file part for one property (however spelled: `photo` and `photo[0]`,
  // `meta.avatar` and `meta[avatar]`), or a value inside a file's property (`photo.name`), would
  // be two values for one property: the file would silently win.
  const fileProperties: { name: string; property: string; path: Segment[]; none?: boolean }[] = [];
  const valueProperties: { name: string; property: string }[] = [];
  const clash = (value: string, file: string) => value === file || value.startsWith(`${file}.`);
  const bothKinds = (valueName: string, fileName: string) =>
    badRequest(valueName === fileName ? `Part ${valueName} is repeated: a file part and a value part have that name` : `Parts ${fileName} (a file) and ${valueName} (a value) name the same property`);
  // `photos[]` (HTML forms, PHP-style clients): the next index of that array, in part order.
  // Mixed with explicit indexes of the same array (`tags[1]` and `tags[]`) the order is anyone's
  // guess: refused, naming the parts as sent.
  const appended = new Map<string, number>();
  // Each name before one of its `[`s, of the parts with explicit brackets, and the part that said it.
  const bracketed = new Map<string, string>();
  const mixed = (a: string, b: string) => badRequest(`Parts ${a} and ${b} mix appended ([]) and explicit indexes of one array`);
  const numbered = (name: string): string => {
    if (typeof name !== "string") return name; // busboy: undefined when unreadable
    if (name.length <= 2 || !name.endsWith("[]")) {
      for (let at = name.indexOf("["); at > 0; at = name.indexOf("[", at + 1)) {
        const base = name.slice(0, at);
        if (appended.has(base)) throw mixed(`${base}[]`, name);
        if (!bracketed.has(base)) bracketed.set(base, name);
      }
      return name;
    }
    const base = name.slice(0, -2);
    const other = bracketed.get(base);
    if (other !== undefined) throw mixed(other, name);
    const next = appended.get(base) ?? 0;
    appended.set(base, next + 1);
    return `${base}[${next}]`;
  };
  const pending: Promise<void>[] = [];
  let fieldBytes = 0;
  let failure: Error | undefined;
  const source = body;
  const fail = (error: Error) => {
    if (failure) return;
    failure = error;
    // Stop parsing at the first failure: busboy would otherwise keep buffering every later
    // field up to its limit (20 bodies of 14 x 15 MiB fields held ~1 GB). The rest of the body
    // is read and dropped, so the client still gets the answer on its connection.
    setImmediate(() => {
      source.unpipe(parser);
      source.resume();
      parser.destroy();
    });
  };

  parser.on("partsLimit", () => fail(badRequest(`Multipart body has more than ${MAX_PARTS} parts`)));
  parser.on("filesLimit", () => fail(badRequest(`Multipart body has more than ${MAX_FILES} files`)));
  let seenParts = 0;
  parser.on("field", (partName, value: string | undefined, info) => {
    seenParts++;
    if (failure) return;
    let name: string;
    try {
      name = numbered(partName);
    } catch (error) {
      return void fail(error as Error);
    }
    if (info.nameTruncated) return void fail(badRequest("A part name is too long"));
    if (info.valueTruncated) return void fail(payloadTooLarge(`Part ${partName} is too large`));
    // busboy decodes UTF-8, Latin-1 and ASCII only: for any other declared charset (`utf-16`,
    // `windows-1251`) it hands no value. A throw here, in an event handler, ended the process.
    if (typeof value !== "string")
      return void fail(badRequest(`Part ${partName} declares a charset this server does not read: send it as UTF-8`));
    fieldBytes += Buffer.byteLength(value);
    if (fieldBytes > sizeLimit) return void fail(payloadTooLarge("Multipart fields are too large together"));
    if (seen.has(name)) return void fail(badRequest(`Part ${name} is repeated`));
    seen.add(name);
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return void fail(badRequest(`Part ${partName} is not a JSON literal`));
    }
    try {
      const path = parsePartName(name);
      const property = path.join(".");
      const file = fileProperties.find((f) => clash(property, f.property));
      if (file) return void fail(bothKinds(name, file.name));
      valueProperties.push({ name, property });
      assignments.push({ name, path, value: parsed });
    } catch (error) {
      fail(error as Error);
    }
  });
  parser.on("file", (partName, stream, info) => {
    seenParts++;
    let name = partName;
    try {
      if (!failure) name = numbered(partName);
    } catch (error) {
      fail(error as Error);
    }
    // Once the parser is destroyed (the first failure), busboy errors the file stream in flight:
    // a stream only drained here, or not yet piped by `onFile`, must not make that error an
    // uncaught exception that ends the process. Whoever consumes the stream has its own listener.
    stream.on("error", () => {});
    if (failure || !options.onFile) {
      if (!options.onFile) fail(unsupportedMediaType("File parts are not taken here: only document and _files writes take files"));
      stream.resume();
      return;
    }
    let property: string;
    let path: Segment[];
    let index: number | undefined;
    let filename: string;
    let entry: (typeof fileProperties)[number];
    try {
      ({ property, path, index } = filePropertyName(name));
      // One name repeated is an array (CONTRACT §5); one index given twice is a mistake.
      if (index !== undefined && fileProperties.some((f) => f.name === name)) throw badRequest(`Part ${name} is repeated`);
      filename = decodeFileName(info.filename ?? "");
      const value = valueProperties.find((v) => clash(v.property, property));
      if (value) throw bothKinds(value.name, name);
      entry = { name, property, path };
      fileProperties.push(entry);
    } catch (error) {
      fail(error as Error);
      stream.resume();
      return;
    }
    const onFile = options.onFile;
    const take = () => onFile(property, filename, stream, { ...info, filename, index } as FileInfo);
    // A file input left empty: browsers send the part with `filename=""` and no bytes. No file,
    // as every form handler reads it (it replaced the file a PATCH meant to keep).
    const taken = filename === "" ? hasBytes(stream).then((any) => (any ? take() : void (entry.none = true))) : take();
    pending.push(Promise.resolve(taken).catch((error) => void fail(error)));
  });

  const delimiters = countDelimiters(source, headers["content-type"] ?? "");
  await new Promise<void>((resolve, reject) => {
    parser.on("close", resolve);
    parser.on("error", () => (failure ? resolve() : reject(badRequest("Malformed multipart body"))));
    source.on("error", reject);
    source.pipe(parser);
  });
  await Promise.all(pending);
  if (failure) throw failure;
  // busboy drops a part it cannot read (no or a malformed Content-Disposition, a `filename*` in a
  // charset it lacks) without a word: a file the client was told it uploaded would be gone.
  if (delimiters.count() - 1 > seenParts)
    throw badRequest("A part of the multipart body could not be read: a missing or malformed Content-Disposition (or a filename* in a charset other than UTF-8)");
  // Values first, then one placeholder per file property: a value object may hold a file
  // (`meta={"k":1}` beside the file `meta.avatar`) whatever order the parts came in.
  const placed = new Set<string>();
  const placeholders = fileProperties.filter((f) => !f.none && !placed.has(f.property) && placed.add(f.property));
  const fields = assemble([...assignments, ...placeholders.map((f) => ({ name: f.name, path: f.path, value: FILE_PART }))]);
  dropFilePlaceholders(fields);
  checkJsonInput(fields, "Multipart body");
  return fields;
}

/**
 * Whether the stream holds any byte, found without losing one: the first chunk read goes back at
 * once (in the same turn, before the stream could emit 'end'), and the stream stays paused.
 */
function hasBytes(stream: Readable): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const done = (any: boolean) => {
      stream.off("readable", readable).off("end", ended).off("error", reject);
      resolve(any);
    };
    const readable = () => {
      const chunk = stream.read() as Buffer | null;
      if (chunk === null) return;
      stream.unshift(chunk);
      done(true);
    };
    const ended = () => done(false);
    stream.on("readable", readable).once("end", ended).once("error", reject);
  });
}

/** Where a file part's record goes: the file layer puts it there once the bytes are stored. */
const FILE_PART = Symbol("file part");

function dropFilePlaceholders(node: Record<string, unknown> | unknown[]): void {
  for (const [key, value] of Object.entries(node)) {
    if (value === FILE_PART) delete (node as Record<string, unknown>)[key];
    else if (value !== null && typeof value === "object") dropFilePlaceholders(value as Record<string, unknown>);
  }
}

/** A step of a part name: a property, or (bracketed number) an array index. */
type Segment = string | number;

/**
 * `a.b[c][0].d` -> ["a", "b", "c", 0, "d"]. Brackets hold a name or an index; an index must be
 * below ARCA_MAX_PARTS (`x[100000]` would be a 100,000-element array from one part).
 */
export function parsePartName(name: string | undefined): Segment[] {
  // busboy leaves the name undefined when the part's Content-Disposition has none it can read.
  if (typeof name !== "string" || name === "") throw badRequest("A multipart part has no name");
  const malformed = () => badRequest(`Part ${name} has a malformed name`);
  const path: Segment[] = [];
  const pattern = /([^.[\]]+)|\[([^[\]]*)\]|(\.)/gy;
  let expectName = true;
  let match: RegExpExecArray | null;
  let end = 0;
  while ((match = pattern.exec(name)) !== null) {
    end = pattern.lastIndex;
    if (match[1] !== undefined) {
      if (!expectName) throw malformed();
      path.push(checkPropertyName(match[1], `Part ${name}`));
      expectName = false;
    } else if (match[2] !== undefined) {
      if (expectName || match[2] === "") throw malformed();
      if (/^\d+$/.test(match[2])) {
        const index = Number(match[2]);
        if (index >= MAX_PARTS) throw badRequest(`Part ${name}: array index ${match[2]} is too large`);
        path.push(index);
      } else path.push(checkPropertyName(match[2], `Part ${name}`));
    } else {
      if (expectName) throw malformed();
      expectName = true;
    }
  }
  if (end !== name.length || expectName || path.length === 0) throw malformed();
  if (path.length > MAX_JSON_DEPTH) throw badRequest(`Part ${name} is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`);
  return path;
}

/**
 * A file part's property as a dotted path and its `[n]`; `photos[0]`, `photos[1]` are the `photos`
 * array. An index before the last is an element (`rows[0].scan` -> `rows.0.scan`).
 */
function filePropertyName(name: string): { property: string; path: Segment[]; index?: number } {
  const path = parsePartName(name);
  const index = typeof path[path.length - 1] === "number" ? (path.pop() as number) : undefined;
  // A file in `_id` made a record no document could hold, an orphan forever.
  if (path[0] === "_id") throw badRequest("A file part cannot be named _id");
  return { property: path.join("."), path, index };
}

/**
 * Browsers percent-encode `"` in `filename="..."` as %22 (HTML spec, "multipart/form-data
 * encoding algorithm"; CR and LF likewise), with no way to tell it from a literal "%22".
 * Decoding those three is what every server does; any other `%` is the name's own.
 * `filename*=UTF-8''...` (RFC 5987/7578) is decoded by busboy already.
 */
export function decodeFileName(filename: string): string {
  const decoded = filename.replace(/%22/gi, '"').replace(/%0D/gi, "\r").replace(/%0A/gi, "\n");
  return checkJsonString(decoded, "File name");
}

/** Builds the fields object from its parts; arrays in index order, refused with gaps. */
function assemble(assignments: { name: string; path: Segment[]; value: unknown }[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  const arrays: { name: string; array: unknown[] }[] = [];
  for (const { name, path, value } of assignments) {
    let node: Record<string, unknown> | unknown[] = root;
    for (let i = 0; i < path.length; i++) {
      const segment = path[i];
      const last = i === path.length - 1;
      const wantsArray = typeof path[i + 1] === "number";
      if (typeof segment === "number" !== Array.isArray(node)) throw badRequest(`Part ${name} conflicts with another part`);
      const current = Array.isArray(node) ? node[segment as number] : Object.hasOwn(node, segment) ? node[segment as string] : undefined;
      if (last) {
        if (current !== undefined) throw badRequest(`Part ${name} conflicts with another part`);
        put(node, segment, value);
        break;
      }
      if (current === undefined) {
        const created = wantsArray ? [] : {};
        if (Array.isArray(created)) arrays.push({ name, array: created });
        put(node, segment, created);
        node = created;
      } else if (current !== null && typeof current === "object" && Array.isArray(current) === wantsArray) {
        node = current as Record<string, unknown> | unknown[];
      } else throw badRequest(`Part ${name} conflicts with another part`);
    }
  }
  // `phones[0]` and `phones[2]` without `phones[1]`: a hole no JSON array can hold.
  for (const { name, array } of arrays) {
    for (let i = 0; i < array.length; i++) if (!(i in array)) throw badRequest(`Part ${name}: no part gives index ${i} of its array`);
  }
  return root;
}

function put(node: Record<string, unknown> | unknown[], segment: Segment, value: unknown): void {
  if (Array.isArray(node)) node[segment as number] = value;
  else setOwn(node, segment as string, value);
}

/**
 * Counts the body's delimiters as it streams past (one more than its parts): `--boundary` at the
 * very start, else after CRLF (RFC 2046, as busboy reads them), with `Buffer.indexOf` per chunk
 * and a look across each chunk's start.
 */
function countDelimiters(source: Readable, contentType: string): { count(): number } {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!match) return { count: () => 0 };
  const boundary = match[1] ?? match[2];
  const opening = Buffer.from(`--${boundary}`, "latin1");
  const delimiter = Buffer.from(`\r\n--${boundary}`, "latin1");
  const keep = delimiter.length - 1;
  let count = 0;
  let start: Buffer | undefined = Buffer.alloc(0);
  let tail = Buffer.alloc(0);
  source.on("data", (chunk: Buffer) => {
    if (start) {
      start = Buffer.concat([start, chunk.subarray(0, opening.length)]);
      if (start.length >= opening.length) {
        if (start.subarray(0, opening.length).equals(opening)) count++;
        start = undefined;
      }
    }
    // A delimiter that starts in the previous chunks' last bytes.
    if (tail.length) {
      const window = Buffer.concat([tail, chunk.subarray(0, keep)]);
      for (let at = window.indexOf(delimiter); at !== -1 && at < tail.length; at = window.indexOf(delimiter, at + 1)) count++;
    }
    for (let at = chunk.indexOf(delimiter); at !== -1; at = chunk.indexOf(delimiter, at + delimiter.length)) count++;
    tail = chunk.length >= keep ? Buffer.from(chunk.subarray(chunk.length - keep)) : Buffer.concat([tail, chunk]).subarray(-keep);
  });
  return { count: () => count };
}
