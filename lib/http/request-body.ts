import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { Context } from "hono";

/**
 * The fast door (@hono/node-server, `npm start`'s server) hands handlers the Node request and
 * response; behind Next's route handler there are only the web Request and Response. These read
 * them once, for every handler that can take the shorter Node path.
 */
type NodeDoorEnv = { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;

/** The Node request on the fast door; undefined behind Next's route handler. */
export function nodeRequest(c: Context): IncomingMessage | undefined {
  return (c.env as NodeDoorEnv)?.incoming;
}

/** The Node response on the fast door; undefined behind Next's route handler. */
export function nodeResponse(c: Context): ServerResponse | undefined {
  return (c.env as NodeDoorEnv)?.outgoing;
}

/**
 * A request's body as a Node stream. On the fast door that is the Node request itself: going
 * through the web body would wrap it in a web ReadableStream and back (Readable.toWeb, then
 * Readable.fromWeb), which cost more CPU than parsing and hashing a large upload together.
 * Undefined without a body.
 */
export function requestBodyStream(c: Context): Readable | undefined {
  const incoming = nodeRequest(c);
  if (incoming) return incoming;
  const body = c.req.raw.body;
  return body ? Readable.fromWeb(body as unknown as WebReadableStream) : undefined;
}
