import type { Context } from "hono";
import { can } from "../auth/can";
import { forbidden } from "../errors";
import { withActions } from "../http/actions";
import { readOnlyCollection } from "../http/read-only";
import type { ApiEnv } from "../http/env";
import { readJsonObject } from "../http/json-body";
import { pathParam, type ProjectRoutes } from "../http/project-routes";
import { listInMemory } from "../lists/list-in-memory";
import { readListQuery } from "../lists/list-query";
import { pageOf } from "../lists/page";
import { projectFields } from "../lists/project-fields";
import { getUsage, listUsage } from "../usage/usage-records";
import { clientRequestUrl } from "../http/request-context";

/**
 * The project's hourly usage as the system collection `_usage` (CONTRACT §10). Written by Arca
 * only (lib/usage/usage-meter.ts): read-only (403 on any write).
 *   GET    /collections/_usage/documents/                   list
 *   POST   /collections/_usage/documents/  X-Action: find   list with a body
 *   GET    /collections/_usage/documents/:id/               read one hour (`2026-11-22T03`)
 *   POST, PUT, PATCH, DELETE (any write)                    403 System collection is read-only
 */
const BASE = "/collections/_usage/documents";

export function bindUsageApi(app: ProjectRoutes): void {
  app.get(BASE, (c) => list(c, {}));
  app.post(BASE, withActions({ find: async (c) => list(c, await readJsonObject(c)) }, readOnlyCollection));
  app.get(`${BASE}/:id`, async (c) => {
    allow(c, pathParam(c, "id"));
    const record = await getUsage(c.get("project")._id, pathParam(c, "id"));
    return c.json(projectFields(record, readListQuery(new URL(c.req.url).searchParams)));
  });
  app.post(`${BASE}/:id`, readOnlyCollection);
  app.put(`${BASE}/:id`, readOnlyCollection);
  app.put(BASE, readOnlyCollection);
  app.patch(`${BASE}/:id`, readOnlyCollection);
  app.delete(`${BASE}/:id`, readOnlyCollection);
}

async function list(c: Context<ApiEnv>, body: Record<string, unknown>) {
  allow(c);
  const query = readListQuery(new URL(c.req.url).searchParams, body);
  const { items, total } = listInMemory(await listUsage(c.get("project")._id), query);
  return c.json(pageOf(items, total, query, clientRequestUrl(c)));
}

function allow(c: Context<ApiEnv>, documentId?: string): void {
  if (!can(c.get("principal"), "read", { collection: "_usage", documentId })) throw forbidden("Not allowed to read in collection _usage");
}
