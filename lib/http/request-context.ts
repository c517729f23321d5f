import type { Context, MiddlewareHandler } from "hono";
import { authenticateProjectRequest, type Credentials } from "../auth/authenticate";
import { sessionIdFromCookies } from "../auth/dashboard-session";
import { config } from "../config";
import { forbidden, notFound } from "../errors";
import type { ApiEnv } from "./env";

/**
 * First middleware: which project the host (or X-Project) names, and which credentials came.
 * Nothing is looked up yet, so account routes on the bare host pay for no project query.
 */
export const readRequestContext: MiddlewareHandler<ApiEnv> = async (c, next) => {
  c.set("projectId", projectFromHost(c.req.header("host"), config().baseDomain) ?? headerProject(c));
  c.set("credentials", await readCredentials(c));
  await next();
};

/** Project routes: resolves project and principal (404, 401, 403 in that order). */
export const requireProject: MiddlewareHandler<ApiEnv> = async (c, next) => {
  const projectId = c.get("projectId");
  if (!projectId) throw notFound("Project not found.");
  const { project, principal } = await authenticateProjectRequest(projectId, c.get("credentials"));
  c.set("project", project);
  c.set("principal", principal);
  await next();
};

export function projectFromHost(host: string | undefined, baseDomain: string): string | undefined {
  if (!host) return undefined;
  const name = host.replace(/:\d+$/, "").toLowerCase();
  const suffix = `.${baseDomain}`;
  if (!name.endsWith(suffix)) return undefined;
  const label = name.slice(0, -suffix.length);
  return label && !label.includes(".") ? label : undefined;
}

function headerProject(c: Context): string | undefined {
  return c.req.header("x-project")?.trim().toLowerCase() || undefined;
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
  const queryToken = c.req.query("token");
  if (queryToken) return { kind: "token", secret: queryToken };
  const sessionId = await sessionIdFromCookies(c.req.header("cookie"));
  if (!sessionId) return undefined;
  // Cookies ride along on requests other sites make; a write may use them only from our origin.
  if (!SAFE_METHODS.has(c.req.method) && !isSameOrigin(c)) throw forbidden("Cross-origin request refused");
  return { kind: "session", sessionId };
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function isSameOrigin(c: Context): boolean {
  const origin = c.req.header("origin");
  if (!origin) return c.req.header("sec-fetch-site") !== "cross-site";
  try {
    return new URL(origin).host === c.req.header("host");
  } catch {
    return false;
  }
}
