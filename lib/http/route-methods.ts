import type { Context, Hono } from "hono";
import type { ApiEnv } from "./env";

/**
 * 405 for a path that exists with other methods (CONTRACT §11), 404 `Page not found` for one that
 * does not exist at all. Hono answers both with its not-found handler; this tells them apart from
 * the app's own route table (middleware, registered for every method, does not count). A request
 * whose own method matches a route and still ends here was stepped past by that route (a system
 * collection's path the generic handlers leave to others): that is a 404 as before.
 */
export function notFoundOrMethodNotAllowed(app: Hono<ApiEnv>): (c: Context) => Response {
  let routes: { method: string; pattern: RegExp; refused: boolean }[] | undefined;
  return (c) => {
    routes ??= servedRoutes(app);
    const path = new URL(c.req.url).pathname.replace(/\/+$/, "") || "/";
    const matching = routes.filter((r) => r.pattern.test(path));
    // A refusal is bound for its path over a broader route of the same method (a collection's
    // property routes match `.../documents` too): that method is not taken here.
    const refused = new Set(matching.filter((r) => r.refused).map((r) => r.method));
    const methods = new Set(matching.filter((r) => !r.refused && !refused.has(r.method)).map((r) => r.method));
    const method = c.req.method === "HEAD" ? "GET" : c.req.method;
    if (methods.size === 0 || methods.has(method)) return c.json({ message: "Page not found" }, 404);
    if (methods.has("GET")) methods.add("HEAD");
    methods.add("OPTIONS");
    c.header("Allow", [...methods].join(", "));
    return c.json({ message: "Method not allowed" }, 405);
  };
}

/**
 * The app's routes by method and path, without those whose handler only refuses the method
 * (`methodNotAllowedHere`): `Allow` names what a path takes. A route's handlers are listed in
 * order (middleware first), so the last one of each method and path is its own.
 */
function servedRoutes(app: Hono<ApiEnv>): { method: string; pattern: RegExp; refused: boolean }[] {
  const last = new Map<string, { method: string; path: string; handler: unknown }>();
  for (const route of app.routes) if (route.method !== "ALL") last.set(`${route.method} ${route.path}`, route);
  return [...last.values()].map((route) => ({ method: route.method, pattern: compile(route.path), refused: REFUSALS.has(route.handler as object) }));
}

const REFUSALS = new WeakSet<object>();

/** Marks a handler that only answers 405 (it may step aside for some paths first). */
export function refusal<H extends object>(handler: H): H {
  REFUSALS.add(handler);
  return handler;
}

/** Whether `handler` only refuses its method (answered before the project and credentials, as a 404 path is). */
export function isRefusal(handler: object): boolean {
  return REFUSALS.has(handler);
}

/**
 * A 405 for a method a path never takes, where the not-found handler cannot tell (the path also
 * matches a route that steps aside for it, e.g. a collection's property paths for `documents/`).
 */
export function methodNotAllowedHere(allowed: string[]): (c: Context) => Response {
  return refusal((c: Context) => {
    c.header("Allow", [...allowed, "OPTIONS"].join(", "));
    return c.json({ message: "Method not allowed" }, 405);
  });
}

/** Hono's path syntax (`/a/:id/:rest{.+}`, `*`) as an anchored RegExp over a path without its trailing slash. */
function compile(path: string): RegExp {
  const body = path
    .replace(/\/+$/, "")
    .split("/")
    .map((segment) => {
      if (segment === "*") return "[^]*";
      const param = /^:[A-Za-z0-9_]+(?:\{(.+)\})?(\?)?$/.exec(segment);
      if (param) return param[1] ? `(?:${param[1]})` : "[^/]+";
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return new RegExp(`^${body}$`);
}
