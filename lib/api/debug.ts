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
import { matchFilter } from "../query/match-filter";
import { parseFilter } from "../query/parse-filter";
import type { Json } from "../query/types";
import { deleteDebugRecords, getDebugRecord, listDebugRecords } from "../usage/debug-log";
import { clientRequestUrl } from "../http/request-context";

/**
 * The project's recorded API calls as the system collection `_debug` (CONTRACT §10), written by
 * Arca while `settings.debug` is on (lib/http/request-meter.ts). Deletable (clearing the log),
 * otherwise read-only. Requests to `_debug` itself are never recorded.
 *   GET    /collections/_debug/documents/                    list (`_id` is time-ordered: sort=-_id for newest first)
 *   POST   /collections/_debug/documents/  X-Action: find    list with a body
 *   POST   /collections/_debug/documents/  X-Action: delete  delete by filter `{ filter }` (none: all)
 *   GET    /collections/_debug/documents/:id/                read
 *   DELETE /collections/_debug/documents/:id/                delete
 *   POST, PUT, PATCH (any other write)                      403 System collection is read-only
 */
const BASE = "/collections/_debug/documents";

export function bindDebugApi(app: ProjectRoutes): void {
  app.get(BASE, (c) => list(c, {}));
  app.post(
    BASE,
    withActions(
      {
        find: async (c) => list(c, await readJsonObject(c)),
        delete: async (c) => deleteMatching(c, await readJsonObject(c)),
      },
      readOnlyCollection,
    ),
  );
  app.get(`${BASE}/:id`, async (c) => {
    allow(c, "read", pathParam(c, "id"));
    const record = await getDebugRecord(c.get("project")._id, pathParam(c, "id"));
    return c.json(projectFields(record, readListQuery(new URL(c.req.url).searchParams)));
  });
  app.delete(`${BASE}/:id`, async (c) => {
    allow(c, "delete", pathParam(c, "id"));
    // Deleting an id that is not there is a 404, like any document.
    const id = pathParam(c, "id");
    await getDebugRecord(c.get("project")._id, id);
    await deleteDebugRecords(c.get("project")._id, [id]);
    return c.body(null, 204);
  });
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

/** `X-Action: delete {filter}`: no filter clears the whole log (CONTRACT §3). */
async function deleteMatching(c: Context<ApiEnv>, body: Record<string, unknown>) {
  allow(c, "delete");
  const { filter: raw } = readListQuery(new URL(c.req.url).searchParams, body);
  const filter = raw ? parseFilter(raw) : undefined;
  const all = (await listDebugRecords(c.get("project")._id)) as unknown as Record<string, unknown>[];
  const ids = all.filter((r) => !filter || matchFilter(filter, r as Json)).map((r) => r._id as string);
  return c.json({ deleted: await deleteDebugRecords(c.get("project")._id, ids) });
}

function allow(c: Context<ApiEnv>, action: Action, documentId?: string): void {
  if (!can(c.get("principal"), action, { collection: "_debug", documentId }))
    throw forbidden(`Not allowed to ${action} in collection _debug`);
}
