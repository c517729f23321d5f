import type { Context, Hono } from "hono";
import { readProperty } from "../documents/document-property";
import type { ApiEnv } from "../http/env";
import { pathParam, propertyPath, type ProjectRoutes } from "../http/project-routes";
import { forbidden } from "../errors";

/**
 * Property paths of system collections' records (`_users/documents/<email>/role/`), read like a
 * document's (CONTRACT §3: lists and reads work the same on system collections). Bound after
 * every system collection's own routes: the record is read through its own GET (permissions,
 * views, masking and all), by a sub-request with the caller's credentials, and the property is
 * taken from it. Writes to a property of a system record: 403 (they change through their record;
 * `_files` records by uploading, lib/api/files.ts).
 */
export function bindSystemRecordProperties(app: Hono<ApiEnv>, routes: ProjectRoutes): void {
  const path = "/collections/:collection/documents/:id/:path{.+}";
  routes.get(path, async (c: Context<ApiEnv>, next) => {
    if (!pathParam(c, "collection").startsWith("_")) return next();
    const url = new URL(c.req.url);
    url.pathname = `/api/collections/${encodeURIComponent(pathParam(c, "collection"))}/documents/${encodeURIComponent(pathParam(c, "id"))}/`;
    url.search = "";
    const token = new URL(c.req.url).searchParams.get("token");
    if (token) url.searchParams.set("token", token);
    const record = await app.fetch(new Request(url, { headers: c.req.raw.headers }));
    if (record.status !== 200) return new Response(record.body, { status: record.status, headers: record.headers });
    return c.json(readProperty((await record.json()) as Record<string, unknown>, propertyPath(c)) as object);
  });
  for (const method of ["put", "post", "patch", "delete"] as const) {
    routes[method](path, (c, next) => {
      if (!pathParam(c, "collection").startsWith("_")) return next();
      throw forbidden("A system record changes as a whole: write the record, not one of its properties");
    });
  }
}
