import type { Context } from "hono";
import { can } from "../auth/can";
import type { Action } from "../auth/principal";
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
import { getDebugRecord, listDebugRecords } from "../usage/debug-log";
import { clientRequestUrl } from "../http/request-context";

/**
 * The project's recorded API calls as the system collection `_debug` (CONTRACT §10), written by
 * Arca while `settings.debug` is on (lib/http/request-meter.ts). Read-only, as §10 makes every
 * system collection but five (the log keeps itself to its newest records).
 *   GET    /collections/_debug/documents/                    list (`_id` is time-ordered: sort=-_id for newest first)
 *   POST   /collections/_debug/documents/  X-Action: find    list with a body
 *   GET    /collections/_debug/documents/:id/                read
 *   any write, DELETE and X-Action delete included          403
 */
const BASE = "/collections/_debug/documents";

export function bindDebugApi(app: ProjectRoutes): void {
  app.get(BASE, (c) => list(c, {}));
  app.post(
    BASE,
    withActions(
      { find: async (c) => list(c, await readJsonObject(c)) },
      readOnlyCollection,
    ),
  );
  app.get(`${BASE}/:id`, async (c) => {
    allow(c, "read", pathParam(c, "id"));
    const record = await getDebugRecord(c.get("project")._id, pathParam(c, "id"));
    return c.json(projectFields(record, readListQuery(new URL(c.req.url).searchParams)));
  });
  app.delete(`${BASE}/:id`, readOnlyCollection);
  app.post(`${BASE}/:id`, readOnlyCollection);
  app.put(`${BASE}/:id`, readOnlyCollection);
  app.put(BASE, readOnlyCollection);
  app.patch(`${BASE}/:id`, readOnlyCollection);
}

async function list(c: Context<ApiEnv>, body: Record<string, unknown>) {
  allow(c, "read");
  const query = readListQuery(new URL(c.req.url).searchParams, body);
  const records = (await listDebugRecords(c.get("project")._id)) as unknown as Record<string, unknown>[];
  const { items, total } = listInMemory(records, query);
  return c.json(pageOf(items, total, query, clientRequestUrl(c)));
}

function allow(c: Context<ApiEnv>, action: Action, documentId?: string): void {
  if (!can(c.get("principal"), action, { collection: "_debug", documentId }))
    throw forbidden(`Not allowed to ${action} in collection _debug`);
}
