import type { Context, Handler } from "hono";
import { can, mayReach } from "../auth/can";
import type { Action } from "../auth/principal";
import type { ProjectScope } from "../collections/collection";
import { READ_ONLY_EMPTY, SYSTEM_ALIASES } from "../collections/system-collections";
import { createDocument } from "../documents/create-document";
import { deleteDocument } from "../documents/delete-document";
import { deleteDocuments } from "../documents/delete-documents";
import { readProperty, setDocumentProperty, unsetDocumentProperty } from "../documents/document-property";
import { getDocument } from "../documents/get-document";
import { listDocuments } from "../documents/list-documents";
import { patchDocument, patchModeOf } from "../documents/patch-document";
import { resolveEmbeds } from "../documents/resolve-embeds";
import { saveDocument } from "../documents/save-document";
import { updateDocuments } from "../documents/update-documents";
import { badRequest, forbidden, notFound, validationError, neitherWriteNorUpdate } from "../errors";
import { collectionIdErrors } from "../collections/collection";
import { withActions } from "../http/actions";
import { methodNotAllowedHere, refusal } from "../http/route-methods";
import { filterReads, readActionBody } from "../http/action-filter";
import type { ApiEnv } from "../http/env";
import { readJsonBody, readJsonValue, readJsonObject } from "../http/json-body";
import { isMultipart } from "../http/multipart-body";
import { currentFileValue, withCurrentFileRecords } from "../files/files-collection";
import { authorizeUploads, readDocumentMultipart, uploadedDocument } from "./document-uploads";
import { pathParam, propertyPath, type ProjectRoutes } from "../http/project-routes";
import { readListQuery, type ListQuery } from "../lists/list-query";
import { pageOf } from "../lists/page";
import { parseProcessOnly } from "../processors/process-only";
import { projectFields } from "../lists/project-fields";
import { clientRequestUrl } from "../http/request-context";

/**
 * Documents of user collections (CONTRACT §3, §5). System collections with their own routes
 * (`_tokens`, `_users`, `_notification`, `_files`, `_usage`, `_debug`) are passed on (`next()`)
 * to them, wherever they are bound; of the others, `_hooks` and `_hooks_history` read as empty
 * lists here (writes 403) and any other `_` name is 404 "Collection not found.".
 *   GET    /collections/:c/documents/                     list (filter, text, sort, page, fields)
 *   POST   /collections/:c/documents/  X-Action: find     list with {filter, text}
 *   POST   /collections/:c/documents/  X-Action: update   {filter, operation} -> {updated}
 *   POST   /collections/:c/documents/  X-Action: upsert   {filter, operation} -> {updated} | {upsertedId}
 *   POST   /collections/:c/documents/  X-Action: delete   {filter} -> {deleted} (no filter: all)
 *   POST   /collections/:c/documents/                     create (JSON or multipart), 201
 *   PUT    /collections/:c/documents/                     save `_id` of the body (201/200); none: create, 201
 *   GET    /collections/:c/documents/:id/                 read (embeds resolved)
 *   POST   /collections/:c/documents/:id/                 create with that id, 201
 *   PUT    /collections/:c/documents/:id/                 save: 201 created / 200 replaced
 *   PATCH  /collections/:c/documents/:id/                 top-level keys (JSON, multipart); RFC 7396 (merge-patch+json)
 *   DELETE /collections/:c/documents/:id/                 delete, 204
 *   GET    /collections/:c/documents/:id/<a>/<b>/         read a property
 *   PUT    /collections/:c/documents/:id/<a>/<b>/         set a property (body: its value): 201 absent / 200 replaced, answers its new value
 *   POST   /collections/:c/documents/:id/<a>/<b>/         create a property: 201, 409 when present
 *   PATCH  /collections/:c/documents/:id/<a>/<b>/         patch a property's value (as PATCH on a document): 200, 404 when absent
 *   DELETE /collections/:c/documents/:id/<a>/<b>/         unset a property, 204
 */
const BASE = "/collections/:collection/documents";

/** System collections served by their own routes: these handlers step aside for them. */
const DELEGATED = new Set(["_tokens", "_users", "_notification", "_notifications", "_files", "_usage", "_debug", "_hooks", "_hooks_history"]);

export function bindDocumentsApi(routes: ProjectRoutes): void {
  const step = (handler: Handler<ApiEnv>): Handler<ApiEnv> => (c, next) =>
    DELEGATED.has(pathParam(c, "collection")) ? next() : handler(c, next);
  const app = {
    get: (path: string, handler: Handler<ApiEnv>) => routes.get(path, step(handler)),
    post: (path: string, handler: Handler<ApiEnv>) => routes.post(path, step(handler)),
    put: (path: string, handler: Handler<ApiEnv>) => routes.put(path, step(handler)),
    patch: (path: string, handler: Handler<ApiEnv>) => routes.patch(path, step(handler)),
    delete: (path: string, handler: Handler<ApiEnv>) => routes.delete(path, step(handler)),
  };
  app.get(BASE, (c) => list(c, {}));
  app.post(
    BASE,
    withActions(
      {
        find: async (c) => list(c, await readJsonObject(c)),
        update: (c) => update(c, false),
        upsert: (c) => update(c, true),
        delete: async (c) => {
          const collectionId = collection(c, "delete");
          const { filter } = await readActionBody(c);
          filterReads(filter, () => allow(c, "read", collectionId));
          const deleted = await deleteDocuments(requestScope(c), { collectionId, filter });
          return c.json({ deleted });
        },
      },
      async (c) => {
        // A per-document grant may name the new document's `_id`, which is in the body.
        const collectionId = collection(c, "write", undefined, false);
        if (!mayReach(c.get("principal"), "write", collectionId)) allow(c, "write", collectionId);
        const body = await readDocumentBody(c);
        await authorizeUploads(c, () => allow(c, "write", collectionId, typeof body._id === "string" ? body._id : undefined));
        const uploaded = await uploadedDocument(c, collectionId, { kind: "create" }, body);
        if (uploaded) return uploaded;
        const doc = await createDocument(requestScope(c), { collectionId, body });
        return c.json(await asRead(c, collectionId, doc), 201);
      },
    ),
  );
  // A document list takes GET, POST and PUT; its PATCH and DELETE would otherwise fall to the
  // collection's property routes and end as 404.
  // So does every system collection's list (`_files` answers for its own, which takes no PUT).
  const notOnList = methodNotAllowedHere(["GET", "HEAD", "POST", "PUT"]);
  const unlessFiles: Handler<ApiEnv> = refusal((c, next) => (pathParam(c, "collection") === "_files" ? next() : notOnList(c)));
  routes.patch(BASE, unlessFiles);
  routes.delete(BASE, unlessFiles);
  app.get(`${BASE}/:id`, async (c) => {
    const collectionId = collection(c, "read", pathParam(c, "id"));
    const { doc, schema } = await getDocument(requestScope(c), { collectionId, id: pathParam(c, "id") });
    const current = await withCurrentFileRecords(c.get("project")._id, collectionId, [doc]);
    const [resolved] = await resolveEmbeds(c.get("project")._id, collectionId, schema, current, readable(c));
    return c.json(projectFields(resolved, listQuery(c)));
  });
  // No verb applies to one document: an X-Action is refused (400, or 403 for a list verb), never a create.
  app.post(`${BASE}/:id`, withActions({}, async (c) => {
    const id = pathParam(c, "id");
    const collectionId = collection(c, "write", id);
    const body = await readDocumentBody(c);
    const uploaded = await uploadedDocument(c, collectionId, { kind: "create", id }, body);
    if (uploaded) return uploaded;
    return c.json(await asRead(c, collectionId, await createDocument(requestScope(c), { collectionId, id, body })), 201);
  }));
  app.put(BASE, async (c) => {
    // The id is in the body (or generated): the original service's save without a path id.
    const collectionId = collection(c, "write", undefined, false);
    const principal = c.get("principal");
    // Refused before the body is read unless some grant could cover the document it names.
    if (!mayReach(principal, "write", collectionId) && !mayReach(principal, "update", collectionId)) throw neitherWriteNorUpdate(collectionId);
    const body = await readDocumentBody(c);
    if (typeof body._id !== "string") {
      await authorizeUploads(c, () => allow(c, "write", collectionId));
      const uploaded = await uploadedDocument(c, collectionId, { kind: "create" }, body);
      if (uploaded) return uploaded;
      return c.json(await asRead(c, collectionId, await createDocument(requestScope(c), { collectionId, body })), 201);
    }
    return save(c, collectionId, body._id, body);
  });
  app.put(`${BASE}/:id`, async (c) => {
    const id = pathParam(c, "id");
    const collectionId = collection(c, "write", id, false);
    // Refuse before a body (perhaps with files) is read; the exact action is checked on save.
    const principal = c.get("principal");
    if (!can(principal, "write", { collection: collectionId, documentId: id }) && !can(principal, "update", { collection: collectionId, documentId: id }))
      throw neitherWriteNorUpdate(collectionId);
    return save(c, collectionId, id, await readDocumentBody(c));
  });
  app.patch(`${BASE}/:id`, async (c) => {
    const id = pathParam(c, "id");
    const collectionId = collection(c, "update", id);
    const patch = await readDocumentBody(c);
    const uploaded = await uploadedDocument(c, collectionId, { kind: "patch", id }, patch);
    if (uploaded) return uploaded;
    return c.json(await asRead(c, collectionId, await patchDocument(requestScope(c), { collectionId, id, patch, mode: patchModeOf(c.req.header("content-type")) })));
  });
  app.delete(`${BASE}/:id`, async (c) => {
    const id = pathParam(c, "id");
    const collectionId = collection(c, "delete", id);
    await deleteDocument(requestScope(c), { collectionId, id });
    return c.body(null, 204);
  });
  app.get(`${BASE}/:id/:path{.+}`, async (c) => {
    const id = pathParam(c, "id");
    const collectionId = collection(c, "read", id);
    const { doc, schema } = await getDocument(requestScope(c), { collectionId, id });
    const [resolved] = await resolveEmbeds(c.get("project")._id, collectionId, schema, [doc], readable(c));
    // Refreshed before the walk: a path inside a file record (`photo/last_access/`) reads it as it is now.
    const [current] = await withCurrentFileRecords(c.get("project")._id, collectionId, [resolved]);
    return c.json(readProperty(current, propertyPath(c)) as object);
  });
  app.put(`${BASE}/:id/:path{.+}`, async (c) => {
    const id = pathParam(c, "id");
    const collectionId = collection(c, "update", id);
    const value = isMultipart(c.req.raw) ? await readDocumentMultipart(c) : await readJsonBody(c);
    const uploaded = await uploadedDocument(c, collectionId, { kind: "set", id, path: propertyPath(c) }, value as Record<string, unknown>);
    if (uploaded) return uploaded;
    const set = await setDocumentProperty(requestScope(c), { collectionId, id, path: propertyPath(c), value });
    return c.json((await currentFileValue(c.get("project")._id, collectionId, id, set.value)) as object, set.created ? 201 : 200);
  });
  // POST creates the property (409 when present), PATCH changes it (404 when absent); JSON bodies.
  app.post(`${BASE}/:id/:path{.+}`, withActions({}, async (c) => {
    const id = pathParam(c, "id");
    const collectionId = collection(c, "update", id);
    const set = await setDocumentProperty(requestScope(c), { collectionId, id, path: propertyPath(c), value: await readJsonValue(c), write: { kind: "create" } });
    return c.json((await currentFileValue(c.get("project")._id, collectionId, id, set.value)) as object, 201);
  }));
  app.patch(`${BASE}/:id/:path{.+}`, async (c) => {
    const id = pathParam(c, "id");
    const collectionId = collection(c, "update", id);
    const write = { kind: "patch", mode: patchModeOf(c.req.header("content-type")) } as const;
    const set = await setDocumentProperty(requestScope(c), { collectionId, id, path: propertyPath(c), value: await readJsonValue(c), write });
    return c.json((await currentFileValue(c.get("project")._id, collectionId, id, set.value)) as object, 200);
  });
  app.delete(`${BASE}/:id/:path{.+}`, async (c) => {
    const id = pathParam(c, "id");
    const collectionId = collection(c, "update", id);
    await unsetDocumentProperty(requestScope(c), { collectionId, id, path: propertyPath(c) });
    return c.body(null, 204);
  });
}

/**
 * A written document as a read shows it: the file records it holds as they are now (the stored
 * copies' `last_access` ages), so the write's answer and a read agree (seed: one record).
 */
async function asRead(c: Context<ApiEnv>, collectionId: string, doc: Record<string, unknown>): Promise<Record<string, unknown>> {
  const [fresh] = await withCurrentFileRecords(c.get("project")._id, collectionId, [doc]);
  return fresh;
}

/** PUT: creates (201) or replaces (200) the document `id`, the action checked once it is known. */
async function save(c: Context<ApiEnv>, collectionId: string, id: string, body: Record<string, unknown>) {
  const authorize = (action: Action) => allow(c, action, collectionId, id);
  const uploaded = await uploadedDocument(c, collectionId, { kind: "save", id, authorize }, body);
  if (uploaded) return uploaded;
  const { doc, created } = await saveDocument(requestScope(c), { collectionId, id, body, authorize });
  return c.json(await asRead(c, collectionId, doc), created ? 201 : 200);
}

async function list(c: Context<ApiEnv>, body: Record<string, unknown>) {
  const query = readListQuery(new URL(c.req.url).searchParams, body);
  const collectionId = collection(c, "read");
  if (collectionId === undefined) return c.json(pageOf([], 0, query, clientRequestUrl(c)));
  // Projected last, as a single read is: `fields=author.name` reaches into an embedded document.
  const whole = { ...query, fields: undefined, fieldsExclude: undefined };
  const { items, total, schema } = await listDocuments(requestScope(c), { collectionId, query: whole });
  const current = await withCurrentFileRecords(c.get("project")._id, collectionId, items);
  const resolved = await resolveEmbeds(c.get("project")._id, collectionId, schema, current, readable(c));
  return c.json(pageOf(resolved.map((doc) => projectFields(doc, query)), total, query, clientRequestUrl(c)));
}

async function update(c: Context<ApiEnv>, upsert: boolean) {
  const collectionId = collection(c, "update");
  if (upsert) allow(c, "write", collectionId);
  const { filter, body } = await readActionBody(c, ["operation"]);
  filterReads(filter, () => allow(c, "read", collectionId));
  if (body.operation === undefined) throw badRequest("operation required");
  const result = await updateDocuments(requestScope(c), { collectionId, filter, operation: body.operation, upsert });
  return c.json(result);
}

/**
 * The collection of the request after the permission check. For the read-only system
 * collections served here, a list answers `undefined` (an empty page), anything else 403/404.
 */
function collection(c: Context<ApiEnv>, action: Action, documentId?: string, check = true): string {
  const raw = pathParam(c, "collection");
  const id = SYSTEM_ALIASES[raw] ?? raw;
  // A write may create the collection (CONTRACT §4): its id must be one a collection can have.
  const creates = action === "write" || action === "update";
  if (creates && !READ_ONLY_EMPTY.has(id) && collectionIdErrors(id).length)
    throw validationError("Validation error", collectionIdErrors(id).map((e) => ({ ...e, property: "collection" })));
  if (id.startsWith("_")) {
    if (!READ_ONLY_EMPTY.has(id)) throw notFound("Collection not found.");
    if (action !== "read") throw forbidden("System collection is read-only");
    allow(c, "read", id, documentId);
    if (documentId !== undefined) throw notFound("Document not found.");
    return undefined as unknown as string;
  }
  if (check) allow(c, action, id, documentId);
  return id;
}

function allow(c: Context<ApiEnv>, action: Action, collectionId: string, documentId?: string): void {
  if (!can(c.get("principal"), action, { collection: collectionId, documentId }))
    throw forbidden(`Not allowed to ${action} in collection ${collectionId}`);
}

function readable(c: Context<ApiEnv>) {
  return (collectionId: string) => can(c.get("principal"), "read", { collection: collectionId });
}

/** The project's write settings and the request's `process_only`, as document writes take them. */
export function requestScope(c: Context<ApiEnv>): ProjectScope {
  const project = c.get("project");
  return {
    projectId: project._id,
    dataSizeLimit: project.settings.data_size_limit ?? 0,
    deleteFiles: project.settings.delete_files !== false,
    filesSizeLimit: project.settings.files_size_limit ?? 0,
    processOnly: parseProcessOnly(c.req.query("process_only"), c.req.header("x-process-only")),
  };
}

function listQuery(c: Context<ApiEnv>): ListQuery {
  return readListQuery(new URL(c.req.url).searchParams);
}


/** A document body: JSON (payload envelope unwrapped) or multipart of JSON literals. */
async function readDocumentBody(c: Context<ApiEnv>): Promise<Record<string, unknown>> {
  return isMultipart(c.req.raw) ? readDocumentMultipart(c) : readJsonObject(c);
}
