import type { MiddlewareHandler } from "hono";
import type { ApiEnv } from "./env";
import { nodeResponse } from "./request-body";

/**
 * The headers every `/api/` answer carries, errors and 404s included (CONTRACT §1), and the
 * CORS preflight, answered before any authentication or project lookup:
 * - `Access-Control-Allow-Origin: *`, or with `ARCA_CORS_ORIGINS=a,b` the request's Origin when
 *   listed (plus `Vary: Origin`) and none otherwise; never `Access-Control-Allow-Credentials`
 *   (the dashboard's cookie is for the dashboard alone; tokens are not ambient);
 * - `Access-Control-Expose-Headers` so scripts can read Content-Range and friends;
 * - frame protection and a referrer policy: an API answer is never a page to frame, and a file
 *   link with `?token=` must not leak through Referer. A file's own sandbox CSP is kept.
 */
export const EXPOSED_HEADERS = "Content-Range, Content-Length, Content-Disposition, ETag, Accept-Ranges, Retry-After, Location";
export const ALLOWED_HEADERS = "Authorization, Content-Type, X-Action, X-Project, X-Process-Only, Range, If-None-Match, If-Range, If-Match";
export const ALLOWED_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";
/**
 * Request headers the API reads beyond the contract's list (the change feed's resume, the content
 * routes' date conditionals): allowed when a preflight asks for them, so a fetch()-based feed
 * client can resume with `Last-Event-ID`; a preflight that does not ask gets the list unchanged.
 */
const ALLOWED_WHEN_ASKED = ["Last-Event-ID", "If-Modified-Since", "If-Unmodified-Since"];

function allowedHeaders(requested: string | undefined): string {
  if (!requested) return ALLOWED_HEADERS;
  const asked = new Set(requested.split(",").map((name) => name.trim().toLowerCase()));
  const extra = ALLOWED_WHEN_ASKED.filter((name) => asked.has(name.toLowerCase()));
  return extra.length ? `${ALLOWED_HEADERS}, ${extra.join(", ")}` : ALLOWED_HEADERS;
}
export const PREFLIGHT_MAX_AGE = "86400";

export const FRAME_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": "frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "strict-origin-when-cross-origin",
};

export const edgeHeaders: MiddlewareHandler<ApiEnv> = async (c, next) => {
  const headers = answerHeaders(c.req.header("origin"), process.env.ARCA_CORS_ORIGINS);
  if (c.req.method === "OPTIONS") {
    return c.body(null, 204, {
      ...headers,
      "access-control-allow-methods": ALLOWED_METHODS,
      "access-control-allow-headers": allowedHeaders(c.req.header("access-control-request-headers")),
      "access-control-max-age": PREFLIGHT_MAX_AGE,
      vary: headers.vary ? `${headers.vary}, Access-Control-Request-Headers` : "Access-Control-Request-Headers",
    });
  }
  // The fast door may write an answer straight to the socket (file downloads): headers set on
  // the Node response now are merged into whatever it writes, the answer's own taking precedence.
  const outgoing = nodeResponse(c);
  if (outgoing && !outgoing.headersSent) {
    for (const [name, value] of Object.entries(headers)) outgoing.setHeader(name, value);
    await next();
    return;
  }
  await next();
  let answer = c.res;
  if (Object.isFrozen(answer.headers)) answer = c.res = new Response(answer.body, answer);
  for (const [name, value] of Object.entries(headers)) if (!answer.headers.has(name)) answer.headers.set(name, value);
};

/**
 * A `HEAD` answers a `GET`'s headers (RFC 9110 §9.3.2), its length included: Hono runs the GET
 * route and drops the body, so a JSON answer's `Content-Length` is measured here first. Streams
 * (exports, file content) carry their own length or none, and are never read for it.
 */
export const headLength: MiddlewareHandler<ApiEnv> = async (c, next) => {
  await next();
  if (c.req.method !== "HEAD" || !c.res.body || c.res.headers.has("content-length")) return;
  if (!/^application\/json\b/i.test(c.res.headers.get("content-type") ?? "")) return;
  const length = (await c.res.clone().arrayBuffer()).byteLength;
  const answer = Object.isFrozen(c.res.headers) ? (c.res = new Response(c.res.body, c.res)) : c.res;
  answer.headers.set("content-length", String(length));
};

/** The headers every `/api/` answer carries, for a request from `origin`. */
export function edgeHeadersFor(origin: string | undefined): Record<string, string> {
  return answerHeaders(origin, process.env.ARCA_CORS_ORIGINS);
}

function answerHeaders(origin: string | undefined, configured: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { ...FRAME_HEADERS, "access-control-expose-headers": EXPOSED_HEADERS };
  const allowed = allowedOrigins(configured);
  if (!allowed) headers["access-control-allow-origin"] = "*";
  else {
    headers.vary = "Origin";
    if (origin && allowed.has(origin.trim())) headers["access-control-allow-origin"] = origin.trim();
  }
  return headers;
}

let parsed: { from: string; origins: Set<string> | undefined } | undefined;

/** `ARCA_CORS_ORIGINS` as a set of origins (`https://app.example`), or undefined for `*`. */
function allowedOrigins(configured: string | undefined): Set<string> | undefined {
  const value = configured?.trim() ?? "";
  if (parsed?.from !== value) {
    const list = value
      .split(",")
      .map((entry) => entry.trim().replace(/\/+$/, ""))
      .filter(Boolean);
    parsed = { from: value, origins: list.length && !list.includes("*") ? new Set(list) : undefined };
  }
  return parsed.origins;
}
