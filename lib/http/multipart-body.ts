import { Readable } from "node:stream";
import busboy from "busboy";
import { badRequest, unsupportedMediaType } from "../errors";

/**
 * Streaming reader of `multipart/form-data` document bodies (CONTRACT §5), never `formData()`.
 *
 *   const fields = await readMultipart(c.req.raw, { onFile(name, filename, stream, info) {...} });
 *
 * - Every part without a filename is a field whose value is a JSON literal (`"text"`, `42`,
 *   `[1,2]`, `{..}`); not JSON: 400 naming the part. A field name repeated: 400.
 * - Dotted part names build nested objects: `a.b` = 1 gives `{a: {b: 1}}`.
 * - Parts with a filename are files: each is handed to `onFile` with its readable stream, which
 *   the callback must consume (or `resume()`); its promise is awaited before the reader returns,
 *   so it can stream to disk and record what it stored. Without `onFile`, a file part is a 415
 *   "File uploads are not supported yet" (its bytes are drained).
 * Returns the fields object (the legacy `payload` envelope is not used in multipart bodies).
 */
export interface FileInfo {
  filename: string;
  mimeType: string;
  encoding: string;
}

export interface MultipartOptions {
  onFile?: (name: string, filename: string, stream: Readable, info: FileInfo) => Promise<void> | void;
  /** Bytes of one field value (default 16 MiB). */
  fieldSizeLimit?: number;
}

export function isMultipart(request: Request): boolean {
  return /^multipart\/form-data\b/i.test(request.headers.get("content-type") ?? "");
}

export async function readMultipart(request: Request, options: MultipartOptions = {}): Promise<Record<string, unknown>> {
  const headers = Object.fromEntries(request.headers.entries());
  if (!request.body) return {};
  let parser: busboy.Busboy;
  try {
    // defParamCharset: file names are UTF-8 (busboy's default, latin1, garbles "résumé.pdf").
    parser = busboy({ headers, defParamCharset: "utf8", limits: { fieldSize: options.fieldSizeLimit ?? 16 * 1024 * 1024 } });
  } catch {
    throw badRequest("Malformed multipart body");
  }
  const fields: Record<string, unknown> = {};
  const seen = new Set<string>();
  const pending: Promise<void>[] = [];
  let failure: Error | undefined;
  const fail = (error: Error) => (failure ??= error);

  parser.on("field", (name, value, info) => {
    if (failure) return;
    if (info.valueTruncated) return void fail(badRequest(`Part ${name} is too large`));
    if (seen.has(name)) return void fail(badRequest(`Part ${name} is repeated`));
    seen.add(name);
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return void fail(badRequest(`Part ${name} is not a JSON literal`));
    }
    const path = name.split(".");
    if (path.some((s) => s === "" || s === "__proto__")) return void fail(badRequest(`Part ${name} has a malformed name`));
    let node = fields;
    for (const segment of path.slice(0, -1)) {
      const next = node[segment];
      if (next !== undefined && (typeof next !== "object" || next === null || Array.isArray(next)))
        return void fail(badRequest(`Part ${name} conflicts with another part`));
      node = (node[segment] ??= {}) as Record<string, unknown>;
    }
    node[path[path.length - 1]] = parsed;
  });
  parser.on("file", (name, stream, info) => {
    if (failure || !options.onFile) {
      if (!options.onFile) fail(unsupportedMediaType("File uploads are not supported yet"));
      stream.resume();
      return;
    }
    pending.push(Promise.resolve(options.onFile(name, info.filename ?? "", stream, info as FileInfo)).catch((error) => void fail(error)));
  });

  await new Promise<void>((resolve, reject) => {
    parser.on("close", resolve);
    parser.on("error", () => reject(badRequest("Malformed multipart body")));
    const source = Readable.fromWeb(request.body as import("node:stream/web").ReadableStream);
    source.on("error", reject);
    source.pipe(parser);
  });
  await Promise.all(pending);
  if (failure) throw failure;
  return fields;
}
