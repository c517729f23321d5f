import type { Context, MiddlewareHandler } from "hono";
import { authenticateProjectRequest, type Credentials } from "../auth/authenticate";
import { sessionIdFromCookies } from "../auth/dashboard-session";
import { noteTokenUse } from "../auth/token-last-used";
import { config } from "../config";
import { notFound } from "../errors";
import { publicOrigin } from "../members/public-url";
import { clientAddress } from "../rate-limits/client-address";
import { assertAddressNotBlocked, countFailure } from "../rate-limits/guessing-limits";
import type { ApiEnv } from "./env";
import { nodeRequest } from "./request-body";

/**
 * First middleware: which project the host (or X-Project) names, which credentials came, and
 * from which network address. Nothing is looked up yet, so account routes on the bare host pay
 * for no project query.
 *
 * It also counts failed token and session checks per client address: a request that presented
 * credentials that resolved no principal and ends 401 is one failure; past the limit requests
 * with credentials answer 429 (with Retry-After) until the window ends, valid credentials
 * included, so a guess cannot be confirmed.
 */
export const readRequestContext: MiddlewareHandler<ApiEnv> = async (c, next) => {
  c.set("projectId", projectFromHost(c.req.header("host"), config().baseDomain) ?? headerProject(c));
  const client = { address: requestAddress(c) };
  c.set("client", client);
  const credentials = await readCredentials(c);
  c.set("credentials", credentials);
  if (!credentials) return next();
  assertAddressNotBlocked(client);
  await next();
  // A principal resolved means the credentials were good (a token refused by `/api/info/` is no guess).
  // Past the limit countFailure throws 429, which replaces the 401 (through the app's onError).
  if (c.res.status === 401 && !c.get("principal")) await countFailure(client);
};

/** Project routes: resolves project and principal (404, 401, 403 in that order). */
export const requireProject: MiddlewareHandler<ApiEnv> = async (c, next) => {
  const projectId = c.get("projectId");
  if (!projectId) throw notFound("Project not found.");
  const { project, incarnation, principal } = await authenticateProjectRequest(projectId, c.get("credentials"));
  if (principal.kind === "token") noteTokenUse(project._id, principal.tokenId);
  c.set("project", project);
  c.set("projectIncarnation", incarnation);
  c.set("principal", principal);
  await next();
};

export function projectFromHost(host: string | undefined, baseDomain: string): string | undefined {
  if (!host) return undefined;
  // A fully qualified name's trailing dot (`demo.localhost.`) names the same host.
  const name = host.replace(/:\d+$/, "").toLowerCase().replace(/\.$/, "");
  const suffix = `.${baseDomain}`;
  if (!name.endsWith(suffix)) return undefined;
  const label = name.slice(0, -suffix.length);
  return label && !label.includes(".") ? label : undefined;
}

function headerProject(c: Context): string | undefined {
  const named = c.req.header("x-project") ?? feedProject(c);
  return named?.trim().toLowerCase() || undefined;
}

/**
 * GET paths a browser reaches without setting headers, so they also take the project as
 * `?project=` on the bare host (as they take `?token=`): the change feed (EventSource sends no
 * headers), file content and a collection's export (a download is a navigation, streamed to
 * disk by the browser).
 */
const QUERY_PROJECT_PATHS: readonly RegExp[] = [
  /\/events\/?$/,
  /^\/api\/collections\/[^/]+\/documents\/[^/]+\/(?:.+\/)?content\/?$/,
  /^\/api\/collections\/[^/]+\/export\/?$/,
];

function feedProject(c: Context): string | undefined {
  return (c.req.method === "GET" || c.req.method === "HEAD") && QUERY_PROJECT_PATHS.some((path) => path.test(c.req.path)) ? c.req.query("project") : undefined;
}

/**
 * True when the project came from `?project=` on the bare host: the request may be a navigation
 * on the dashboard's own origin, so what it answers must never render there (file content goes
 * out as an attachment under `Content-Security-Policy: sandbox`).
 */
export function projectNamedInQuery(c: Context): boolean {
  return projectFromHost(c.req.header("host"), config().baseDomain) === undefined && c.req.header("x-project") === undefined && feedProject(c) !== undefined;
}

function requestAddress(c: Context): string | undefined {
  return clientAddress({
    socketAddress: nodeRequest(c)?.socket?.remoteAddress,
    forwardedFor: c.req.header("x-forwarded-for"),
    // As rateLimitConfig() reads it, without parsing the limits on every request.
    trustProxy: process.env.ARCA_TRUST_PROXY === "true",
  });
}

async function readCredentials(c: Context): Promise<Credentials> {
  const authorization = c.req.header("authorization");
  if (authorization) {
    const match = /^(Token|Bearer|SessionId)\s+(\S+)\s*$/i.exec(authorization);
    if (match) {
      return match[1].toLowerCase() === "sessionid"
        ? { kind: "session", sessionId: match[2] }
        : { kind: "token", secret: match[2] };
    }
  }
  // Parameter names are percent-decoded (`?%74oken=` is `?token=`); redaction decodes them too.
  const queryToken = new URL(c.req.url).searchParams.get("token");
  if (queryToken) return { kind: "token", secret: queryToken };
  // Cookies ride along on requests other sites make: the dashboard's counts only from its origin.
  if (!cookieMayAuthorize(c)) return undefined;
  const sessionId = await sessionIdFromCookies(c.req.header("cookie"));
  return sessionId ? { kind: "session", sessionId } : undefined;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * CONTRACT §1 (CSRF): `Origin` equal to the dashboard's origin, or `Sec-Fetch-Site: same-origin`,
 * or a safe method with neither header (old browsers, links typed by hand). Anything else,
 * unsafe methods without either header included, leaves the cookie out: no credentials. An
 * `Origin` that is another's decides even beside `Sec-Fetch-Site: same-origin` (no browser
 * sends that pair; a request that does is no browser's of ours).
 */
function cookieMayAuthorize(c: Context): boolean {
  const origin = c.req.header("origin");
  const fetchSite = c.req.header("sec-fetch-site");
  if (origin !== undefined) return isDashboardOrigin(origin, c.req.header("host"));
  if (fetchSite?.trim().toLowerCase() === "same-origin") return true;
  return origin === undefined && fetchSite === undefined && SAFE_METHODS.has(c.req.method);
}

/** The origin the cookie was set for: the host this request went to, or ARCA_PUBLIC_URL's. */
function isDashboardOrigin(origin: string, host: string | undefined): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false; // `Origin: null` (sandboxed frames, redirects across sites) and garbage
  }
  if (parsed.origin !== origin.trim().replace(/\/$/, "")) return false;
  if (host && parsed.host === host.toLowerCase()) return true;
  try {
    return parsed.origin === new URL(publicOrigin()).origin;
  } catch {
    return false;
  }
}

/**
 * The URL as the client asked for it, for links it will follow (list pages' `links`): behind a
 * trusted proxy (`ARCA_TRUST_PROXY=true`) that ends TLS, its `X-Forwarded-Proto` (`http` or
 * `https`, the first one of a list) names the scheme; the host is the `Host` the proxy passes on.
 */
export function clientRequestUrl(c: Context): string {
  const url = c.req.url;
  if (process.env.ARCA_TRUST_PROXY !== "true") return url;
  const proto = c.req.header("x-forwarded-proto")?.split(",")[0].trim().toLowerCase();
  if ((proto !== "http" && proto !== "https") || url.startsWith(`${proto}:`)) return url;
  const parsed = new URL(url);
  parsed.protocol = `${proto}:`;
  return parsed.toString();
}
