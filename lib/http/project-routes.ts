import type { Handler, Hono } from "hono";
import { badRequest } from "../errors";
import type { ApiEnv } from "./env";
import { requireProject } from "./request-context";
import { meterRequest } from "./request-meter";
import { isRefusal } from "./route-methods";

/**
 * Registers project-scoped routes: each runs `requireProject` (project, credentials, activity),
 * then `meterRequest` (`_usage`, `_debug`), before its handler. Per route rather than per prefix,
 * so an unknown path under a project prefix is still a plain 404 "Page not found" and not a 401;
 * likewise a method a path never takes is 405 whoever asks (a refusal runs before both).
 */
export type ProjectRoutes = Record<"get" | "post" | "put" | "patch" | "delete", (path: string, handler: Handler<ApiEnv>) => void>;

export function projectRoutes(app: Hono<ApiEnv>): ProjectRoutes {
  const method = (name: string) => (path: string, handler: Handler<ApiEnv>) => {
    if (isRefusal(handler)) app.on(name, path, handler);
    else app.on(name, path, requireProject, meterRequest, handler);
  };
  return { get: method("GET"), post: method("POST"), put: method("PUT"), patch: method("PATCH"), delete: method("DELETE") };
}

/** A path parameter of the matched route (always present once the route matched). */
export function pathParam(c: { req: { param(name: string): string | undefined } }, name: string): string {
  const value = c.req.param(name) ?? "";
  // PostgreSQL text cannot hold NUL: refused here once for every id in a path (never a 500).
  if (value.includes("\u0000")) throw badRequest("A path segment must not contain NUL");
  return value;
}

/**
 * The `:path{.+}` of a property route as its segments, each percent-decoded exactly once
 * (`a/b%2Fc/` -> ["a", "b/c"], `%2541` -> ["%41"]). Hono's parameter is already decoded, which
 * loses the difference between `/` and `%2F` and made a second decode read `%2541` as `A`; so the
 * segments come from the request's raw path, at the parameter's place in the matched route.
 */
export function propertyPath(c: { req: { routePath: string; url: string } }): string[] {
  const pattern = c.req.routePath.split("/");
  const at = pattern.findIndex((segment) => segment.startsWith(":path"));
  const raw = new URL(c.req.url).pathname.split("/");
  if (raw[raw.length - 1] === "") raw.pop(); // the trailing slash
  return raw
    .slice(at, raw.length - (pattern.length - at - 1))
    .filter(Boolean)
    .map((segment) => {
      let decoded: string;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        throw badRequest("Malformed percent-escape in the property path");
      }
      if (decoded.includes("\u0000")) throw badRequest("A path segment must not contain NUL");
      return decoded;
    });
}
