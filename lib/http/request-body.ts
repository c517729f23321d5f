import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { Context } from "hono";

/**
 * A request's body as a Node stream. On the fast door (@hono/node-server) that is the Node
 * request itself: going through the web body would wrap it in a web ReadableStream and back
 * (Readable.toWeb, then Readable.fromWeb), which cost more CPU than parsing and hashing a large
 * upload together. Behind Next's route handler only the web body exists. Undefined without a body.
 */
export function requestBodyStream(c: Context): Readable | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming) return incoming;
  const body = c.req.raw.body;
  return body ? Readable.fromWeb(body as unknown as WebReadableStream) : undefined;
}
