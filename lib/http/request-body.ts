import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { Context } from "hono";
import { unsupportedMediaType } from "../errors";

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

/**
 * Arca reads bodies as sent: a compressed one (`Content-Encoding: gzip`, `br`, ...) would be parsed
 * as its compressed bytes (a gzip JSON body was a confusing 400, a `br` label on a plain body was
 * ignored). RFC 9110 §8.4.1: a coding the server does not take is 415, said before the body is read.
 */
export function refuseEncodedBody(headers: Headers): void {
  const coding = headers.get("content-encoding")?.trim().toLowerCase();
  if (coding && coding !== "identity") throw unsupportedMediaType(`Content-Encoding ${JSON.stringify(coding)} is not taken: send the body uncompressed`);
}
