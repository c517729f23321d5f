import type { Context, MiddlewareHandler } from "hono";
import { enqueueDebugCall } from "../usage/debug-log";
import { edgeHeadersFor } from "./edge-headers";
import { recordUsage } from "../usage/usage-meter";
import type { ApiEnv } from "./env";

/**
 * Meters every project request once its project is resolved (`_usage`) and, while the project's
 * `settings.debug` is on, logs it (`_debug`), CONTRACT §10. Both only queue in memory; the
 * flushers (lib/background-workers.ts) write. Nothing here can fail the request.
 *
 * Byte counts: `bytes_in` is the request's Content-Length (0 for a body sent without one, e.g.
 * chunked: counting it would mean wrapping every upload stream). `bytes_out` is the response's
 * Content-Length when set (file content), else the exact size of a JSON answer (measured when it
 * is built), else, for a streamed body, the bytes as they pass (counted at the stream's end).
 */
export const meterRequest: MiddlewareHandler<ApiEnv> = async (c, next) => {
  // Routes that step aside (`next()`) for another route of the same path run this again.
  if (c.get("metered")) return next();
  c.set("metered", true);
  const started = Date.now();
  const clock = performance.now();
  const project = c.get("project");
  const debugging = project.settings.debug === true && isLogged(c.req.path);
  // A token's secret is answered once, on creation: it must not outlive that answer in the log.
  const keepBodies = debugging && !/\/collections\/_tokens(\/|$)/.test(c.req.path);
  // A read of the log answers earlier records, whose answers hold earlier ones still: its own
  // record keeps no answer body, or each would nest the log into itself.
  const keepAnswer = keepBodies && !/\/collections\/_debug(\/|$)/.test(c.req.path);
  const json = captureJson(c, keepAnswer);
  try {
    await next();
  } finally {
    try {
      const timeTook = Math.round((performance.now() - clock) * 100) / 100;
      const bytesIn = contentLength(c.req.header("content-length")) ?? 0;
      const jsonAnswer = json.last && c.res.status === json.last.status && /json/i.test(c.res.headers.get("content-type") ?? "");
      const declared = contentLength(c.res.headers.get("content-length") ?? undefined);
      if (debugging)
        enqueueDebugCall(project._id, {
          method: c.req.method,
          url: c.req.url,
          requestHeaders: c.req.raw.headers,
          requestBody: keepBodies ? c.get("requestBody") : undefined,
          statusCode: c.res.status,
          responseHeaders: headersAsSent(c, jsonAnswer ? json.last!.bytes : undefined),
          responseBody: jsonAnswer && keepAnswer ? json.last?.text : undefined,
          started,
          timeTook,
        });
      // Reading `body` of the fast door's lightweight Response builds the real one: only when needed.
      const empty = c.req.method === "HEAD" || c.res.status === 204 || c.res.status === 304;
      // The change feed counts its own bytes when it closes (no stream wrapped per subscriber).
      const feed = /^text\/event-stream/i.test(c.res.headers.get("content-type") ?? "");
      if (declared !== undefined || jsonAnswer || empty || feed || !c.res.body) {
        recordUsage(project._id, { bytesIn, bytesOut: declared ?? (jsonAnswer && !empty ? json.last!.bytes : 0) });
      } else {
        c.res = new Response(c.res.body.pipeThrough(countingStream((bytesOut) => recordUsage(project._id, { bytesIn, bytesOut }))), c.res);
      }
    } catch (error) {
      console.error(`usage: metering failed: ${(error as Error).message}`);
    }
  }
};

/** `_debug` logs every call except file content (CONTRACT §10). */
function isLogged(path: string): boolean {
  return !/\/content\/?$/.test(path);
}

/**
 * The answer's headers as the client gets them: the edge headers every `/api/` answer carries
 * (added outside this middleware, lib/http/edge-headers.ts) under the answer's own, and a JSON
 * answer's length (set by the server when it writes the body).
 */
function headersAsSent(c: Context<ApiEnv>, jsonBytes: number | undefined): Headers {
  const sent = new Headers(edgeHeadersFor(c.req.header("origin")));
  c.res.headers.forEach((value, name) => sent.set(name, value));
  if (jsonBytes !== undefined && !sent.has("content-length")) sent.set("content-length", String(jsonBytes));
  return sent;
}

interface JsonAnswer {
  status: number;
  bytes: number;
  text: string | undefined;
}

/**
 * Wraps `c.json` so the size (and, when logging, the text) of the JSON answer is known without
 * reading the response back. It builds the answer exactly as Hono's own `c.json` does.
 */
function captureJson(c: Context<ApiEnv>, keepText: boolean): { last: JsonAnswer | undefined } {
  const captured: { last: JsonAnswer | undefined } = { last: undefined };
  const body = c.body as unknown as (data: string | undefined, arg?: number | ResponseInit, headers?: Record<string, string>) => Response;
  c.json = ((object: unknown, arg?: number | ResponseInit, headers?: Record<string, string>) => {
    const text = JSON.stringify(object) as string | undefined;
    const response = body(text, arg, { "Content-Type": "application/json", ...headers });
    captured.last = { status: response.status, bytes: text === undefined ? 0 : Buffer.byteLength(text), text: keepText ? text : undefined };
    return response;
  }) as unknown as typeof c.json;
  return captured;
}

function contentLength(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

function countingStream(done: (bytes: number) => void): TransformStream<Uint8Array, Uint8Array> {
  let bytes = 0;
  let reported = false;
  const report = () => {
    if (reported) return;
    reported = true;
    done(bytes);
  };
  return new TransformStream({
    transform(chunk, controller) {
      bytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
    flush: report,
    cancel: report,
  } as Transformer<Uint8Array, Uint8Array> & { cancel(): void });
}
