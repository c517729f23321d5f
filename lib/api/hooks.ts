import type { Context } from "hono";
import { can, wholeCollectionsReadable } from "../auth/can";
import type { Action } from "../auth/principal";
import { mergePatch } from "../documents/merge-patch";
import { badRequest, forbidden, notFound } from "../errors";
import { deliverHook } from "../hooks/deliver-hook";
import { hookView, type Hook } from "../hooks/hook";
import { claimForRetry, queueTestDelivery, recordAttempt } from "../hooks/hook-deliveries";
import { deleteHookHistory, deleteHookHistoryRecord, getHookHistoryRecord, listHookHistory, projectRecord } from "../hooks/hook-history";
import { createHook, deleteHook, deleteHooks, getHook, hookExists, listHooks, patchHook, redirectsDeliveries, saveHook, type WatchCheck } from "../hooks/hooks";
import { filterReads, readActionBody } from "../http/action-filter";
import { withActions } from "../http/actions";
import { readOnlyCollection } from "../http/read-only";
import type { ApiEnv } from "../http/env";
import { readJsonValue, readJsonObject } from "../http/json-body";
import { pathParam, type ProjectRoutes } from "../http/project-routes";
import { listInMemory, recordsMatching } from "../lists/list-in-memory";
import { readListQuery } from "../lists/list-query";
import { pageOf } from "../lists/page";
import { projectFields } from "../lists/project-fields";
import { clientRequestUrl } from "../http/request-context";

/**
 * Hooks (`_hooks`) and their deliveries (`_hooks_history`), CONTRACT §8.
 *   GET    /collections/_hooks/documents/                    list (filter, text over _id and name)
 *   POST   /collections/_hooks/documents/  X-Action: find    list with a body
 *   POST   /collections/_hooks/documents/  X-Action: delete  delete by criteria
 *   POST   /collections/_hooks/documents/                    create, 201 with defaults filled
 *   GET    /collections/_hooks/documents/:id/                read
 *   POST   /collections/_hooks/documents/:id/  X-Action: test  deliver a sample now: the history record
 *   POST   /collections/_hooks/documents/:id/                create with that id
 *   PUT    /collections/_hooks/documents/:id/                save: 201 created / 200 replaced
 *   PATCH  /collections/_hooks/documents/:id/                top-level keys (merge-patch+json: RFC 7396)
 *   DELETE /collections/_hooks/documents/:id/                delete (queued deliveries dropped), 204
 *   GET    /collections/_hooks_history/documents/            list (filter, sort, paging)
 *   POST   /collections/_hooks_history/documents/  X-Action: find | delete
 *   GET    /collections/_hooks_history/documents/:id/        read
 *   POST   /collections/_hooks_history/documents/:id/  X-Action: retry  deliver that event again now
 *   DELETE /collections/_hooks_history/documents/:id/        delete, 204
 */
const HOOKS = "/collections/_hooks/documents";
const HISTORY = "/collections/_hooks_history/documents";

export function bindHooksApi(app: ProjectRoutes): void {
  app.get(HOOKS, (c) => list(c, {}));
  app.post(
    HOOKS,
    withActions(
      {
        find: async (c) => list(c, await readJsonObject(c)),
        delete: async (c) => {
          allow(c, "delete");
          // The body's filter, else the URL's: a filter in the URL is never taken for "every hook".
          const { filter } = await readActionBody(c);
          filterReads(filter, () => allow(c, "read"));
          const hooks = await listHooks(c.get("project")._id);
          const matching = recordsMatching(hooks as unknown as Record<string, unknown>[], filter);
          return c.json({ deleted: await deleteHooks(c.get("project")._id, matching.map((h) => String(h._id))) });
        },
      },
      async (c) => {
        allow(c, "write");
        return c.json(viewFor(c, await createHook(c.get("project")._id, await readJsonObject(c), undefined, watchCheck(c))), 201);
      },
    ),
  );
  app.get(`${HOOKS}/:id`, async (c) => {
    allow(c, "read", pathParam(c, "id"));
    const hook = await getHook(c.get("project")._id, pathParam(c, "id"));
    return c.json(projectFields(viewFor(c, hook), readListQuery(new URL(c.req.url).searchParams)));
  });
  app.post(
    `${HOOKS}/:id`,
    withActions(
      {
        test: async (c) => {
          allow(c, "update", pathParam(c, "id"));
          await readJsonValue(c); // takes nothing, but a body is checked as every body is (400, 415)
          const projectId = c.get("project")._id;
          const hook = await getHook(projectId, pathParam(c, "id"));
          const delivery = await queueTestDelivery(projectId, hook);
          await recordAttempt(delivery, await deliverHook(hook, { operationId: delivery.id, trigger: "test", document: delivery.document }), { retry: false });
          return c.json(await getHookHistoryRecord(projectId, delivery.id));
        },
      },
      async (c) => {
        allow(c, "write", pathParam(c, "id"));
        return c.json(viewFor(c, await createHook(c.get("project")._id, await readJsonObject(c), pathParam(c, "id"), watchCheck(c))), 201);
      },
    ),
  );
  app.put(`${HOOKS}/:id`, async (c) => save(c, pathParam(c, "id"), await readJsonObject(c)));
  // PUT without an id in the path (CONTRACT §5): saves the body's `_id`, or creates one.
  app.put(HOOKS, async (c) => {
    const body = await readJsonObject(c);
    if (typeof body._id === "string") return save(c, body._id, body);
    allow(c, "write");
    return c.json(viewFor(c, await createHook(c.get("project")._id, body, undefined, watchCheck(c))), 201);
  });
  app.patch(`${HOOKS}/:id`, async (c) => {
    const projectId = c.get("project")._id;
    const id = pathParam(c, "id");
    allow(c, "update", id);
    const body = await readJsonObject(c);
    if (/^application\/merge-patch\+json\b/i.test(c.req.header("content-type") ?? "")) {
      // RFC 7396 on the hook as stored, saved whole: a key the patch removes takes its default.
      const current = await getHook(projectId, id);
      const merged = mergePatch(current, body) as Record<string, unknown>;
      return c.json(viewFor(c, (await saveHook(projectId, id, merged, redirectsDeliveries(current, merged) ? watchCheck(c) : undefined)).hook));
    }
    return c.json(viewFor(c, await patchHook(projectId, id, body, watchCheck(c))));
  });
  app.delete(`${HOOKS}/:id`, async (c) => {
    allow(c, "delete", pathParam(c, "id"));
    await deleteHook(c.get("project")._id, pathParam(c, "id"));
    return c.body(null, 204);
  });

  app.get(HISTORY, (c) => history(c, {}));
  // Read-only and deletable (CONTRACT §8): every other write is 403.
  app.put(HISTORY, readOnlyCollection);
  app.put(`${HISTORY}/:id`, readOnlyCollection);
  app.patch(`${HISTORY}/:id`, readOnlyCollection);
  app.post(
    HISTORY,
    withActions({
      find: async (c) => history(c, await readJsonObject(c)),
      delete: async (c) => {
        allowHistory(c, "delete");
        const { filter } = await readActionBody(c);
        filterReads(filter, () => allowHistory(c, "read"));
        // Only the records the caller can see (as its find shows them): the others are none of its business.
        return c.json({ deleted: await deleteHookHistory(c.get("project")._id, filter, wholeCollectionsReadable(c.get("principal"))) });
      },
    }, readOnlyCollection),
  );
  app.get(`${HISTORY}/:id`, async (c) => {
    allowHistory(c, "read");
    const record = await visibleHistoryRecord(c, pathParam(c, "id"));
    return c.json(projectRecord(record, readListQuery(new URL(c.req.url).searchParams)));
  });
  app.post(
    `${HISTORY}/:id`,
    withActions({
      retry: async (c) => {
        allowHistory(c, "update");
        await readJsonValue(c); // takes nothing, but a body is checked as every body is (400, 415)
        const projectId = c.get("project")._id;
        await visibleHistoryRecord(c, pathParam(c, "id"));
        const delivery = await claimForRetry(projectId, pathParam(c, "id"));
        await recordAttempt(delivery, await deliverHook(delivery.hook, { operationId: delivery.id, trigger: delivery.trigger, document: delivery.document }));
        return c.json(await getHookHistoryRecord(projectId, delivery.id));
      },
    }, readOnlyCollection),
  );
  app.delete(`${HISTORY}/:id`, async (c) => {
    allowHistory(c, "delete");
    await visibleHistoryRecord(c, pathParam(c, "id"));
    await deleteHookHistoryRecord(c.get("project")._id, pathParam(c, "id"));
    return c.body(null, 204);
  });
}

/**
 * A history record the caller may see: one of a collection it may not read carries a document it
 * must not get, so it is as if absent (404) to a read, a retry and a delete alike.
 */
async function visibleHistoryRecord(c: Context<ApiEnv>, id: string): Promise<Record<string, unknown>> {
  const record = await getHookHistoryRecord(c.get("project")._id, id);
  if (!can(c.get("principal"), "read", { collection: String(record.collection) })) throw notFound("Document not found.");
  return record;
}

/** A hook delivers its collection's documents: its writer must be able to read them (no way round read grants). */
function watchCheck(c: Context<ApiEnv>): WatchCheck {
  return (collection, role) => {
    if (can(c.get("principal"), "read", { collection })) return;
    throw forbidden(
      role === "from"
        ? `Not allowed to read in collection ${collection}: the hook delivers its documents, signed with its secret`
        : `Not allowed to read in collection ${collection}: a hook would deliver its documents`,
    );
  };
}

async function save(c: Context<ApiEnv>, id: string, body: Record<string, unknown>) {
  const projectId = c.get("project")._id;
  allow(c, (await hookExists(projectId, id)) ? "update" : "write", id);
  const { hook, created } = await saveHook(projectId, id, body, watchCheck(c));
  return c.json(viewFor(c, hook), created ? 201 : 200);
}

async function list(c: Context<ApiEnv>, body: Record<string, unknown>) {
  allow(c, "read");
  const query = readListQuery(new URL(c.req.url).searchParams, body);
  const hooks = (await listHooks(c.get("project")._id)).map((h) => viewFor(c, h)) as unknown as Record<string, unknown>[];
  const { items, total } = listInMemory(hooks, query, ["_id", "name"]);
  return c.json(pageOf(items, total, query, clientRequestUrl(c)));
}

async function history(c: Context<ApiEnv>, body: Record<string, unknown>) {
  allowHistory(c, "read");
  const query = readListQuery(new URL(c.req.url).searchParams, body);
  if (query.text) throw badRequest("Collection has no text index");
  const { items, total } = await listHookHistory(c.get("project")._id, query, undefined, wholeCollectionsReadable(c.get("principal")));
  return c.json(pageOf(items, total, query, clientRequestUrl(c)));
}

/**
 * Whether the answer may show `hook`'s secret and credential headers: to those who manage hooks
 * and may read the hook's collection (with the secret, one could sign deliveries of documents
 * it may not read, which the receiver would trust).
 */
function mayManage(c: Context<ApiEnv>, hook: Pick<Hook, "collection">): boolean {
  const principal = c.get("principal");
  return can(principal, "update", { collection: "_hooks", manage: true }) && can(principal, "read", { collection: hook.collection });
}

/** `hookView` for the caller. */
function viewFor(c: Context<ApiEnv>, hook: Hook) {
  return hookView(hook, mayManage(c, hook));
}

// Hooks configure where a project's data is sent: managing them is administration (owners and
// admins; members read). A token's per-document grant (`{where: "_hooks", what_id}`) reaches that
// hook, as grants reach documents.
function allow(c: Context<ApiEnv>, action: Action, documentId?: string): void {
  const principal = c.get("principal");
  const manage = action !== "read" && (principal.kind === "user" || documentId === undefined);
  if (!can(principal, action, { collection: "_hooks", documentId, manage })) throw forbidden(`Not allowed to ${action} hooks`);
}

function allowHistory(c: Context<ApiEnv>, action: Action): void {
  if (!can(c.get("principal"), action, { collection: "_hooks_history", manage: action !== "read" }))
    throw forbidden(`Not allowed to ${action} in collection _hooks_history`);
}
