import http from "node:http";
import { AsyncLocalStorage } from "node:async_hooks";
import type { Duplex } from "node:stream";
import { createRequire } from "node:module";
import { parse } from "node:url";
import { getRequestListener } from "@hono/node-server";
import next from "next";
import { apiApp } from "./lib/api/app";
import { startBackgroundWorkers } from "./lib/background-workers";
import { startHookThread } from "./lib/hooks/start-hook-thread";
import { checkFileBlobStore } from "./lib/files/file-blob-store";
import { edgeHeadersFor } from "./lib/http/edge-headers";
import { projectFromHost } from "./lib/http/request-context";
import { publicOrigin } from "./lib/members/public-url";
import { config } from "./lib/config";

/**
 * A request the adapter cannot make a Request of (a backslash in the path, a Host that is no
 * host[:port]) never reaches the app: it still gets the contract's JSON error and CORS headers.
 */
function malformedRequest(error: unknown): Response {
  const reason = error instanceof Error && error.name === "RequestError" ? error.message : "malformed request";
  return Response.json({ message: `Bad request: ${reason}` }, { status: 400, headers: edgeHeadersFor(requestOrigin.getStore()) });
}

/** The `Origin` of the request being served, for that error (the adapter hands it the error alone). */
const requestOrigin = new AsyncLocalStorage<string | undefined>();

/**
 * Where a request-target that is not literally `/api/...` but that a URL parser turns into one
 * (`//api/...`, `/./api/...`, `/api\\...`, `/%61pi/...`) goes. Left to Next, it was redirected (a
 * 3xx breaks POST clients) or served by Next's handler, without the socket the per-IP limits
 * key on. Dot segments are resolved and empty ones dropped (the target the API serves, as a proxy
 * merging slashes would), except an empty one inside, past `/api/<first>`: 404. A backslash goes
 * to the API as written (400); a path that is the API's only
 * once decoded is answered 404 here. `undefined`: not the API's.
 */
function apiTarget(url: string): { rewrite: string } | { notFound: true } | undefined {
  const query = url.indexOf("?");
  const path = query < 0 ? url : url.slice(0, query);
  const { segments: normalized, innerEmpty } = resolveSegments(path.replace(/\\/g, "/"));
  if (normalized[0] !== "api") {
    let decoded: string[];
    try {
      decoded = resolveSegments(decodeURIComponent(path).replace(/\\/g, "/")).segments;
    } catch {
      return undefined;
    }
    return decoded[0]?.toLowerCase() === "api" ? { notFound: true } : undefined;
  }
  if (path.includes("\\")) return { rewrite: url };
  // `/collections/notes/documents//title/` is no document's path: dropped, its empty id made
  // the request act on the document `title` (a DELETE deleted it).
  if (innerEmpty) return { notFound: true };
  const rewritten = `/${normalized.join("/")}${path.endsWith("/") && normalized.length > 1 ? "/" : ""}`;
  return { rewrite: rewritten + (query < 0 ? "" : url.slice(query)) };
}

/** An empty or dot segment in the path (`/api//user/` from a base URL ending in `/`): apiTarget's to drop. */
function hasLooseSegments(url: string): boolean {
  const query = url.indexOf("?");
  const path = query < 0 ? url : url.slice(0, query);
  return path.includes("//") || path.includes("/./") || path.includes("/../") || path.endsWith("/.") || path.endsWith("/..");
}

/**
 * The path's segments with dot segments resolved and empty ones dropped; `innerEmpty` when an
 * empty one stood between two segments past `/api/`. Only those before the first of them (a base
 * URL ending in `/` joined to `/collections/...`) and at the end are slips to forgive: one inside
 * stands for a missing id or name.
 */
function resolveSegments(path: string): { segments: string[]; innerEmpty: boolean } {
  const segments: string[] = [];
  let pendingEmpty = false;
  let innerEmpty = false;
  for (const segment of path.split("/")) {
    if (segment === "") {
      if (segments.length > 1) pendingEmpty = true;
      continue;
    }
    if (segment === ".") continue;
    if (segment === "..") segments.pop();
    else {
      if (pendingEmpty) innerEmpty = true;
      segments.push(segment);
    }
  }
  return { segments, innerEmpty };
}

/**
 * What Node's HTTP parser refuses before any handler runs (an unknown method, a malformed or too
 * large header block, a request that timed out) still gets the contract's JSON error and CORS
 * headers, not Node's bare status line.
 */
function answerUnparsable(error: NodeJS.ErrnoException, socket: Duplex): void {
  // As Node's own handler: nothing more once an answer on this socket has begun (a body left
  // unread after an early answer fails to parse too).
  const answering = (socket as Duplex & { _httpMessage?: http.ServerResponse })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || answering?.headersSent) return void socket.destroy();
  const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const message = status === 431 ? "Request header fields too large" : status === 408 ? "Request timeout" : "Bad request: malformed HTTP request";
  const body = JSON.stringify({ message });
  const headers = { ...edgeHeadersFor(undefined), "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), connection: "close" };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${head}\r\n${body}`);
}

/** Whether a request-target's path percent-decodes (no lone `%`, no bytes that are no UTF-8). */
function decodable(url: string): boolean {
  try {
    decodeURIComponent(url.split("?")[0]);
    return true;
  } catch {
    return false;
  }
}

type Middleware = (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void;

/**
 * `npm start`'s server, the fast door: `/api/*` goes straight to the Hono app (Next's route
 * handler pipeline costs ~1 ms of CPU per request); everything else to Next. No logic here.
 */
export async function startServer(options: { port: number; dev?: boolean; withDashboard?: boolean }) {
  await checkFileBlobStore(); // a misconfigured S3 store stops the start with its reason
  const listener = getRequestListener(apiApp().fetch, { errorHandler: malformedRequest });
  const api = (req: http.IncomingMessage, res: http.ServerResponse) => requestOrigin.run(req.headers.origin, () => listener(req, res));
  let dashboard: ((req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>) | undefined;
  if (options.withDashboard !== false) {
    // Next needs its own address to follow server-action redirects (sign-in, sign-out).
    const app = next({ dev: options.dev ?? false, dir: process.cwd(), hostname: "localhost", port: options.port });
    await app.prepare();
    const handle = app.getRequestHandler();
    // Pages and /_next/static gzipped as `next start` does (Next's own copy of `compression`);
    // next.config.ts turns Next's compression off, so /api/ stays uncompressed on both doors.
    const require = createRequire(import.meta.url);
    const compress = (require("next/dist/compiled/compression") as () => Middleware)();
    const { releaseCompressionStream } = require("next/dist/server/lib/release-compression-stream") as { releaseCompressionStream: (res: http.ServerResponse) => void };
    dashboard = (req, res) => {
      compress(req, res, () => {});
      // A client gone mid-answer would otherwise leave the zlib stream open.
      res.once("close", () => res.writableFinished || releaseCompressionStream(res));
      return handle(req, res, parse(req.url ?? "/", true));
    };
  }
  // A request without Host comes through (Node answered it with a bare 400 of its own) and gets
  // the same JSON 400, with the CORS headers, as every other request this server cannot place.
  const server = http.createServer({ requireHostHeader: false }, (req, res) => {
    // The absolute form (`GET http://demo.localhost:3000/api/ HTTP/1.1`), which RFC 9112 has a
    // server accept: its authority is the Host.
    const absolute = /^https?:\/\/([^/?#]*)([^#]*)$/i.exec(req.url ?? "");
    if (absolute) {
      req.url = absolute[2].startsWith("/") ? absolute[2] : `/${absolute[2]}`;
      req.headers.host = absolute[1];
      // The API reads headers from rawHeaders (name, value, name, value...).
      const at = req.rawHeaders.findIndex((name, i) => i % 2 === 0 && name.toLowerCase() === "host");
      if (at === -1) req.rawHeaders.push("Host", absolute[1]);
      else req.rawHeaders[at + 1] = absolute[1];
    }
    // `GET *` (a request-target that is no path) is for OPTIONS to a proxy, never for us.
    if (!req.url?.startsWith("/")) {
      const body = '{"message":"Bad request: the request-target is not a path"}';
      return void res.writeHead(400, { ...edgeHeadersFor(req.headers.origin), "content-type": "application/json", "content-length": String(body.length) }).end(body);
    }
    if ((req.url === "/api" || req.url.startsWith("/api/") || req.url.startsWith("/api?")) && !hasLooseSegments(req.url)) return void api(req, res);
    const target = apiTarget(req.url);
    if (target && "rewrite" in target) {
      req.url = target.rewrite;
      return void api(req, res);
    }
    if (target) {
      const headers = { ...edgeHeadersFor(req.headers.origin), "content-type": "application/json" };
      return void res.writeHead(404, headers).end('{"message":"Page not found"}');
    }
    // The dashboard lives on the bare host only: on a project's host (where that project's files
    // are served) its pages, and the session cookie they would set, have no business.
    // Next builds its URLs from the Host: without one, the dashboard has no page to give.
    if (dashboard && !req.headers.host) return void res.writeHead(400, { "content-type": "text/plain" }).end("Bad request: missing Host header");
    // Next decodes dynamic segments and answers 500 to a malformed escape (`/invite/%ff`).
    if (dashboard && !decodable(req.url)) return void res.writeHead(400, { "content-type": "text/plain" }).end("Bad request: malformed percent-encoding in the path");
    if (dashboard && projectFromHost(req.headers.host, config().baseDomain) !== undefined)
      return void res.writeHead(308, { location: publicOrigin() + req.url, "content-type": "text/plain" }).end("The dashboard is at " + publicOrigin());
    if (dashboard) return void dashboard(req, res);
    res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
  });
  server.keepAliveTimeout = 65_000;
  // Node keeps the first 2,000 header lines and drops the rest without a word (an `X-Project`
  // after them was "Project not found."); the header block's size limit (431) bounds them anyway.
  server.maxHeadersCount = 0;
  server.on("clientError", answerUnparsable);
  // Hook dispatch and deliveries on a thread of their own, of lower priority than requests.
  const workers = startBackgroundWorkers({ startHooks: startHookThread });
  server.on("close", () => void workers.stop());
  await new Promise<void>((resolve) => server.listen(options.port, resolve));
  return server;
}
