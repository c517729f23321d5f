import type { Context, Next } from "hono";
import { can } from "../auth/can";
import type { Action } from "../auth/principal";
import { deleteCollection } from "../collections/delete-collection";
import { getCollection } from "../collections/get-collection";
import { listCollections } from "../collections/list-collections";
import { saveCollection, type SaveMode } from "../collections/save-collection";
import { badRequest, forbidden, validationError } from "../errors";
import { refuseActions, withActions } from "../http/actions";
import type { ApiEnv } from "../http/env";
import { readJsonValue, readJsonObject } from "../http/json-body";
import { pathParam, propertyPath, type ProjectRoutes } from "../http/project-routes";
import { patchCollectionProperty, readCollectionProperty, setCollectionProperty, unsetCollectionProperty } from "../collections/collection-property";
import { listInMemory } from "../lists/list-in-memory";
import { readListQuery } from "../lists/list-query";
import { pageOf } from "../lists/page";
import { projectFields } from "../lists/project-fields";
import { clientRequestUrl } from "../http/request-context";
import { withProcessorSecretsMasked } from "../processors/processor-secrets";

/**
 * Collection definitions (CONTRACT §4).
 *   GET    /collections/                     list (only collections the principal can read)
 *   POST   /collections/   X-Action: find    list with a body
 *   POST   /collections/                     create (`_id` in the body), 201
 *   PUT    /collections/                     save (`_id` in the body): 201 created / 200 replaced
 *   GET    /collections/:id/                 read (fields, fields_exclude)
 *   GET    /collections/:id/<property path>/ read one property of the definition (any depth)
 *   PUT    /collections/:id/<property path>/ set it (body: the value): 201 absent / 200 replaced
 *   PATCH  /collections/:id/<property path>/ JSON merge patch of it
 *   DELETE /collections/:id/<property path>/ unset it, 204
 *   POST   /collections/:id/                 create with that id, 201
 *   PUT    /collections/:id/                 save: 201 created / 200 replaced
 *   PATCH  /collections/:id/                 JSON merge patch
 *   DELETE /collections/:id/                 delete with documents, files and indexes, 204
 * `/collections/:id/documents/...` is never answered here (passed on to the documents routes).
 */
export function bindCollectionsApi(app: ProjectRoutes): void {
  app.get("/collections", (c) => list(c, {}));
  app.post(
    "/collections",
    withActions({ find: async (c) => list(c, await readJsonObject(c)) }, async (c) => {
      const body = await readJsonObject(c);
      return save(c, bodyCollectionId(body), body, "create");
    }),
  );
  app.put("/collections", async (c) => {
    const body = await readJsonObject(c);
    return save(c, bodyCollectionId(body), body, "replace");
  });
  app.get("/collections/:id", async (c) => {
    const id = pathParam(c, "id");
    allow(c, "read", id);
    const collection = shownTo(c, await getCollection(c.get("project")._id, id));
    return c.json(projectFields(collection, readListQuery(new URL(c.req.url).searchParams)));
  });
  // `/collections/<id>/documents/...` belongs to the documents routes (system ones included).
  const property = (handler: (c: Context<ApiEnv>, id: string, path: string[]) => Promise<Response>) => (c: Context<ApiEnv>, next: Next) =>
    pathParam(c, "path").split("/")[0] === "documents" ? next() : handler(c, pathParam(c, "id"), propertyPath(c));
  app.get("/collections/:id/:path{.+}", property(async (c, id, path) => {
    allow(c, "read", id);
    return c.json((await readCollectionProperty(c.get("project")._id, id, path, (collection) => shownTo(c, collection))) as object);
  }));
  app.put("/collections/:id/:path{.+}", property(async (c, id, path) => {
    allow(c, "update", id);
    const set = await setCollectionProperty(c.get("project")._id, { id, path, value: await readJsonValue(c) });
    return c.json(set.value as object, set.created ? 201 : 200);
  }));
  // No verb applies to one property: an X-Action is refused (400, 403 for a list verb), never a create.
  app.post("/collections/:id/:path{.+}", property(async (c, id, path) => {
    refuseActions(c);
    allow(c, "update", id);
    const set = await setCollectionProperty(c.get("project")._id, { id, path, value: await readJsonValue(c), createOnly: true });
    return c.json(set.value as object, 201);
  }));
  app.patch("/collections/:id/:path{.+}", property(async (c, id, path) => {
    allow(c, "update", id);
    return c.json((await patchCollectionProperty(c.get("project")._id, { id, path, patch: await readJsonValue(c) })) as object);
  }));
  app.delete("/collections/:id/:path{.+}", property(async (c, id, path) => {
    allow(c, "update", id);
    await unsetCollectionProperty(c.get("project")._id, { id, path });
    return c.body(null, 204);
  }));
  // No verb applies to one collection: an X-Action is refused (400 unknown, 403 a list verb), never taken for a create.
  app.post("/collections/:id", withActions({}, async (c) => save(c, pathParam(c, "id"), await readJsonObject(c), "create")));
  app.put("/collections/:id", async (c) => save(c, pathParam(c, "id"), await readJsonObject(c), "replace"));
  app.patch("/collections/:id", async (c) => save(c, pathParam(c, "id"), await readJsonObject(c), "merge"));
  app.delete("/collections/:id", async (c) => {
    const id = pathParam(c, "id");
    allow(c, "delete", id);
    const project = c.get("project");
    await deleteCollection(project._id, id, { keepFiles: project.settings.delete_files === false });
    return c.body(null, 204);
  });
}

/** The `_id` a body names: none is 400 (nothing to act on), one that is no string 422 naming it, as for documents. */
function bodyCollectionId(body: Record<string, unknown>): string {
  if (body._id === undefined) throw badRequest("Collection _id required");
  if (typeof body._id !== "string") throw validationError("Validation error", [{ property: "_id", message: "must be a string" }]);
  return body._id;
}

/** A definition as `c`'s principal sees it: processors' credentials masked unless it may manage the collection. */
function shownTo<T>(c: Context<ApiEnv>, collection: T): T {
  const id = (collection as { _id?: string })._id ?? "";
  return can(c.get("principal"), "update", { collection: id, manage: true }) ? collection : withProcessorSecretsMasked(collection);
}

async function list(c: Context<ApiEnv>, body: Record<string, unknown>) {
  const query = readListQuery(new URL(c.req.url).searchParams, body);
  const principal = c.get("principal");
  const readable = (await listCollections(c.get("project")._id)).filter((col) => can(principal, "read", { collection: col._id })).map((col) => shownTo(c, col));
  const { items, total } = listInMemory(readable as unknown as Record<string, unknown>[], query, ["_id", "name", "description"]);
  return c.json(pageOf(items, total, query, clientRequestUrl(c)));
}

async function save(c: Context<ApiEnv>, id: string, body: Record<string, unknown>, mode: SaveMode) {
  // PUT is a create or a replace: it needs both rights unless the definition's existence is known.
  allow(c, mode === "create" ? "write" : "update", id);
  if (mode === "replace") allow(c, "write", id);
  const { collection, created } = await saveCollection(c.get("project")._id, { id, body, mode });
  return c.json(collection, created ? 201 : 200);
}

function allow(c: Context<ApiEnv>, action: Action, collection: string): void {
  const manage = action !== "read";
  if (!can(c.get("principal"), action, { collection, manage })) throw forbidden(`Not allowed to ${action} collection ${collection}`);
}

