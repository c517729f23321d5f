import { isUtf8 } from "node:buffer";
import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import type { ApiEnv } from "./env";
import { nodeRequest, refuseEncodedBody, requestBodyStream } from "./request-body";
import { isMultipart, readMultipart } from "./multipart-body";
import { badRequest, payloadTooLarge, unsupportedMediaType } from "../errors";
import { checkJsonInput } from "../query/json-input";

/** JSON bodies are small documents, not files: anything bigger is refused before it is parsed. */
export const JSON_BODY_LIMIT = Number(process.env.ARCA_JSON_BODY_LIMIT || 16 * 1024 * 1024);

/**
 * Reads a JSON request body within the size limit and unwraps the legacy `{ "payload": ... }`
 * envelope. An empty body reads as `{}` so verbs like `X-Action: logout` need none.
 */
export async function readJsonBody(c: Context): Promise<unknown> {
  refuseEncodedBody(c.req.raw.headers);
  const type = c.req.header("content-type") ?? "";
  const length = Number(c.req.header("content-length") ?? "0");
  if (length > JSON_BODY_LIMIT) throw payloadTooLarge("Request body is too large");
  const incoming = nodeRequest(c);
  const bytes = incoming ? await readNodeBytes(incoming, JSON_BODY_LIMIT) : await readLimitedBytes(c.req.raw, JSON_BODY_LIMIT);
  const text = bytes.toString("utf8");
  (c as Context<ApiEnv>).set("requestBody", text);
  if (text.trim() === "") return {};
  // Routes that take files read multipart before they get here: this one takes JSON alone.
  if (/^multipart\//i.test(type)) throw unsupportedMediaType("Request body must be JSON");
  const plainText = /^text\/plain\b/i.test(type);
  if (type && !/^application\/(.+\+)?json\b/i.test(type) && !plainText)
    throw unsupportedMediaType("Request body must be JSON or multipart/form-data");
  // JSON is UTF-8 (RFC 8259): other bytes are a malformed body, never U+FFFD stored in a document
  // (checked once the media type is known to be JSON's: an image sent as text/plain is a 415).
  if (!isUtf8(bytes)) {
    if (plainText) throw unsupportedMediaType("Request body must be JSON or multipart/form-data");
    throw badRequest("Malformed JSON in request body: not valid UTF-8");
  }
  let value: unknown;
  try {
    // A UTF-8 byte order mark (Windows tools write one) is no part of the JSON text (RFC 8259 §8.1).
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    // `text/plain` is taken when it holds JSON (forms and simple clients send it); otherwise the
    // body is neither JSON nor multipart: 415 (CONTRACT §11).
    if (plainText) throw unsupportedMediaType("Request body must be JSON or multipart/form-data");
    throw badRequest("Malformed JSON in request body");
  }
  // Depth, `__proto__` keys and NUL: refused here once for every JSON body (lib/query/json-input.ts).
  checkJsonInput(value);
  return unwrapPayload(value);
}

export function unwrapPayload(value: unknown): unknown {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === "payload") return (value as { payload: unknown }).payload;
  }
  return value;
}

/**
 * A body that is any JSON value (a property's new value), or, as `multipart/form-data` of JSON
 * literal parts, the object they build (never 415: CONTRACT §11); a file part there is 415.
 */
export async function readJsonValue(c: Context): Promise<unknown> {
  if (isMultipart(c.req.raw)) return readMultipart(c.req.raw, requestBodyStream(c));
  return readJsonBody(c);
}

/**
 * Reads a JSON object body; anything else (an array, a number) is a 400. A multipart body of
 * JSON literal parts (CONTRACT §5) is the same object, on every route that takes one; a file
 * part in it is 415 (only document and `_files` writes take files).
 */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  const value = await readJsonValue(c);
  if (!value || typeof value !== "object" || Array.isArray(value)) throw badRequest("Request body must be a JSON object");
  return value as Record<string, unknown>;
}

/**
 * On the fast door (@hono/node-server) the Node request is at hand: reading it directly skips
 * building a web ReadableStream and AbortSignal per request, which cost ~15 % of a small POST.
 */
async function readNodeBytes(incoming: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of incoming) {
    total += (chunk as Buffer).length;
    if (total > limit) {
      incoming.resume();
      throw payloadTooLarge("Request body is too large");
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function readLimitedBytes(request: Request, limit: number): Promise<Buffer> {
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw payloadTooLarge("Request body is too large");
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
