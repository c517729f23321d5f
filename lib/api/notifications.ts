import type { Context } from "hono";
import { can } from "../auth/can";
import type { Action } from "../auth/principal";
import { forbidden } from "../errors";
import { filterReads, readActionBody } from "../http/action-filter";
import { withActions } from "../http/actions";
import { readOnlyCollection } from "../http/read-only";
import type { ApiEnv } from "../http/env";
import { readJsonObject } from "../http/json-body";
import { pathParam, type ProjectRoutes } from "../http/project-routes";
import { listInMemory } from "../lists/list-in-memory";
import { readListQuery } from "../lists/list-query";
import { pageOf } from "../lists/page";
import { projectFields } from "../lists/project-fields";
import { parseFilter } from "../query/parse-filter";
import { matchFilter } from "../query/match-filter";
import type { Json } from "../query/types";
import {
  deleteNotification,
  deleteNotifications,
  getNotification,
  listNotifications,
} from "../members/notifications";
import { clientRequestUrl } from "../http/request-context";

/**
 * The project's notifications as the system collection `_notification`, also served as
 * `_notifications` (CONTRACT §10). Written by Arca only: deletable, otherwise read-only (403).
 *   GET    /collections/_notification/documents/                    list
 *   POST   /collections/_notification/documents/  X-Action: find    list with a body
 *   POST   /collections/_notification/documents/  X-Action: delete  delete by filter `{ filter }`
 *   GET    /collections/_notification/documents/:id/                read
 *   DELETE /collections/_notification/documents/:id/                delete
 *   POST, PUT, PATCH (any other write)                             403 System collection is read-only
 */
const COLLECTION = "_notification";
const NAMES = ["_notification", "_notifications"];

export function bindNotificationsApi(app: ProjectRoutes): void {
  for (const name of NAMES) {
    const base = `/collections/${name}/documents`;
    app.get(base, (c) => list(c, {}));
    app.post(
      base,
      withActions(
        {
          find: async (c) => list(c, await readJsonObject(c)),
          delete: async (c) => deleteMatching(c),
        },
        readOnlyCollection,
      ),
    );
    app.get(`${base}/:id`, async (c) => {
      allow(c, "read", pathParam(c, "id"));
      const notification = await getNotification(c.get("project")._id, pathParam(c, "id"));
      return c.json(projectFields(notification, readListQuery(new URL(c.req.url).searchParams)));
    });
    app.delete(`${base}/:id`, async (c) => {
      allow(c, "delete", pathParam(c, "id"));
      await deleteNotification(c.get("project")._id, pathParam(c, "id"));
      return c.body(null, 204);
    });
    app.post(`${base}/:id`, readOnlyCollection);
    app.put(`${base}/:id`, readOnlyCollection);
    app.put(base, readOnlyCollection);
    app.patch(`${base}/:id`, readOnlyCollection);
  }
}

async function list(c: Context<ApiEnv>, body: Record<string, unknown>) {
  allow(c, "read");
  const query = readListQuery(new URL(c.req.url).searchParams, body);
  const notifications = (await listNotifications(c.get("project")._id)) as unknown as Record<string, unknown>[];
  const { items, total } = listInMemory(notifications, query, ["subject", "message", "author"]);
  return c.json(pageOf(items, total, query, clientRequestUrl(c)));
}

/** `X-Action: delete {filter}`: no filter deletes them all (CONTRACT §3). */
async function deleteMatching(c: Context<ApiEnv>) {
  allow(c, "delete");
  const { filter: raw } = await readActionBody(c);
  filterReads(raw, () => allow(c, "read"));
  const filter = raw ? parseFilter(raw) : undefined;
  const all = (await listNotifications(c.get("project")._id)) as unknown as Record<string, unknown>[];
  const ids = all.filter((n) => !filter || matchFilter(filter, n as Json)).map((n) => n._id as string);
  return c.json({ deleted: await deleteNotifications(c.get("project")._id, ids) });
}

function allow(c: Context<ApiEnv>, action: Action, documentId?: string): void {
  const principal = c.get("principal");
  const permitted =
    can(principal, action, { collection: COLLECTION, documentId }) ||
    // A token may name the collection by either spelling.
    (principal.kind === "token" && can(principal, action, { collection: "_notifications", documentId }));
  if (!permitted) throw forbidden(action === "read" ? "Not allowed to read notifications" : "Not allowed to delete notifications");
}
