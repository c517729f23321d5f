import { methodNotAllowedHere } from "../http/route-methods";
import type { Context, Next } from "hono";
import { can } from "../auth/can";
import type { Action } from "../auth/principal";
import { readProperty } from "../documents/document-property";
import { requestScope } from "./documents";
import { getDocument } from "../documents/get-document";
import { badRequest, forbidden, notFound, payloadTooLarge, unsupportedMediaType, neitherWriteNorUpdate } from "../errors";
import { config } from "../config";
import { FILES_COLLECTION, fileRecord, filesFilter, isFileRecordShape, type FileRow } from "../files/file-record";
import { deleteFile, findDocumentFile, findFile, listFiles, uploadToFiles } from "../files/files-collection";
import { deleteFilesMatching } from "../files/delete-files-matching";
import { withActions } from "../http/actions";
import { filterReads, readActionBody } from "../http/action-filter";
import { readJsonObject } from "../http/json-body";
import type { ApiEnv } from "../http/env";
import { fileResponse } from "../http/file-response";
import { isMultipart } from "../http/multipart-body";
import { pathParam, propertyPath, type ProjectRoutes } from "../http/project-routes";
import { clientRequestUrl, projectNamedInQuery } from "../http/request-context";
import { nodeResponse } from "../http/request-body";
import { readUploadBody } from "../http/upload-body";
import { listInMemory } from "../lists/list-in-memory";
import { readListQuery } from "../lists/list-query";
import { pageOf } from "../lists/page";
import { projectFields } from "../lists/project-fields";

/**
 * Files (CONTRACT §6). Bound before the documents routes, so a `.../content/` path reaches the
 * bytes before the generic property route reads it as a property named "content".
 *   GET    /collections/_files/documents/                       list the records
 *   POST   /collections/_files/documents/  X-Action: find       list with {filter, text}
 *   POST   /collections/_files/documents/  X-Action: delete     {filter} -> {deleted}: records, bytes, properties
 *   POST   /collections/_files/documents/  X-Action: update|upsert  403
 *   POST   /collections/_files/documents/                       upload (part `file`), 201
 *   GET    /collections/_files/documents/:id/                   the record
 *   GET    /collections/_files/documents/:id/content/           the bytes (HEAD, Range, conditionals)
 *   POST   /collections/_files/documents/:id/                   upload with that id, 201 (taken: 409)
 *   PUT    /collections/_files/documents/:id/                   upload: 201 created / 200 replaced
 *   DELETE /collections/_files/documents/:id/                   delete (unsets its document's property), 204
 *   GET    /collections/:c/documents/:id/<field path>/content/  the bytes of the file a property holds
 * Uploads into document properties ride on the documents routes (lib/api/document-uploads.ts).
 */
const FILES = "/collections/_files/documents";

export function bindFilesApi(routes: ProjectRoutes): void {
  routes.get(FILES, (c) => list(c, {}));
  // Records are made by uploading (POST) and removed one by one or by criteria: no PUT,
  // PATCH or DELETE on the list (the generic list routes step aside for system collections).
  for (const method of ["put", "patch", "delete"] as const) routes[method](FILES, methodNotAllowedHere(["GET", "HEAD", "POST"]));
  // A record changes only by uploading again (PUT) or goes (DELETE): no PATCH.
  routes.patch(`${FILES}/:id`, methodNotAllowedHere(["GET", "HEAD", "POST", "PUT", "DELETE"]));
  routes.post(
    FILES,
    withActions(
      {
        find: async (c) => list(c, await readJsonObject(c)),
        // Records describe bytes: they change only by uploading again (CONTRACT §3).
        update: () => {
          throw forbidden("Files cannot be updated by criteria");
        },
        upsert: () => {
          throw forbidden("Files cannot be updated by criteria");
        },
        delete: async (c) => {
          allow(c, "delete", FILES_COLLECTION);
          // The body's filter, else the URL's: a filter is never taken for "none" (every file).
          const { filter } = await readActionBody(c);
          filterReads(filter, () => allow(c, "read", FILES_COLLECTION));
          return c.json({ deleted: await deleteFilesMatching(requestScope(c), filter) });
        },
      },
      (c) => upload(c, undefined, false),
    ),
  );
  // `fields` / `fields_exclude` as on any document read (`_id` kept unless excluded).
  routes.get(`${FILES}/:id`, async (c) => c.json(projectFields(fileRecord(await readableFile(c)), readListQuery(new URL(c.req.url).searchParams))));
  routes.get(`${FILES}/:id/content`, async (c) => fileResponse(c.req.raw, await readableFile(c), nodeResponse(c), contentOptions(c)));
  // A record's properties by path, like any document's (`.../<id>/name/`).
  routes.get(`${FILES}/:id/:path{.+}`, async (c) => {
    return c.json(readProperty(fileRecord(await readableFile(c)) as unknown as Record<string, unknown>, propertyPath(c)) as object);
  });
  // No verb applies to one file record: an X-Action is refused, never an upload.
  routes.post(`${FILES}/:id`, withActions({}, (c) => upload(c, pathParam(c, "id"), false)));
  routes.put(`${FILES}/:id`, (c) => upload(c, pathParam(c, "id"), true));
  routes.delete(`${FILES}/:id`, async (c) => {
    await deleteFile(requestScope(c), pathParam(c, "id"), (row) => {
      const principal = c.get("principal");
      const viaDocument = row.collection_id !== FILES_COLLECTION && can(principal, "update", { collection: row.collection_id, documentId: row.document_id });
      if (!viaDocument) allow(c, "delete", FILES_COLLECTION, row.id);
    });
    return c.body(null, 204);
  });
  routes.get("/collections/:collection/documents/:id/:path{.+}/content", propertyContent);
}

async function list(c: Context<ApiEnv>, body: Record<string, unknown>) {
  allow(c, "read", FILES_COLLECTION);
  const query = readListQuery(new URL(c.req.url).searchParams, body);
  query.filter = filesFilter(query.filter);
  const { items, total } = listInMemory((await listFiles(projectId(c))) as unknown as Record<string, unknown>[], query, ["name"]);
  return c.json(pageOf(items, total, query, clientRequestUrl(c)));
}

/** The bytes of the file a document property holds; any other value: the property route's turn. */
async function propertyContent(c: Context<ApiEnv>, next: Next) {
  const collectionId = pathParam(c, "collection");
  const id = pathParam(c, "id");
  if (collectionId.startsWith("_")) return next();
  allow(c, "read", collectionId, id);
  const { doc } = await getDocument({ projectId: projectId(c), dataSizeLimit: 0 }, { collectionId, id });
  const path = propertyPath(c);
  let value: unknown;
  try {
    value = readProperty(doc, path);
  } catch {
    return next();
  }
  if (!isFileRecordShape(value)) return next();
  const row = await findDocumentFile(projectId(c), collectionId, id, value._id);
  if (!row) throw notFound("File not found.");
  return fileResponse(c.req.raw, row, nodeResponse(c), contentOptions(c));
}

/** Content named by `?project=` on the bare host is on the dashboard's origin: always a download. */
function contentOptions(c: Context<ApiEnv>): { attachment: boolean } {
  return { attachment: projectNamedInQuery(c) };
}

/** A `_files` record the caller may read: read on `_files`, or read on the file's own document. */
async function readableFile(c: Context<ApiEnv>): Promise<FileRow> {
  const id = pathParam(c, "id");
  const principal = c.get("principal");
  const readsFiles = can(principal, "read", { collection: FILES_COLLECTION, documentId: id });
  const row = await findFile(projectId(c), id);
  // Without read on `_files`, an absent id is refused as a hidden one is: 404 against 403 would
  // tell which file ids exist in collections the caller cannot read.
  if (!row) throw readsFiles ? notFound("Document not found.") : forbidden(`Not allowed to read in collection ${FILES_COLLECTION}`);
  if (readsFiles) return row;
  if (row.collection_id !== FILES_COLLECTION && can(principal, "read", { collection: row.collection_id, documentId: row.document_id })) return row;
  throw forbidden(`Not allowed to read in collection ${FILES_COLLECTION}`);
}

async function upload(c: Context<ApiEnv>, id: string | undefined, replace: boolean) {
  // A body of another media type is 415, as multipart sent to a JSON route is; none at all, 400.
  if (!isMultipart(c.req.raw)) {
    const message = "Upload a file as multipart/form-data with a part named file";
    throw c.req.header("content-type") ? unsupportedMediaType(message) : badRequest(message);
  }
  // Refuse before the body is streamed to disk; PUT's exact action (write or update) is known
  // only once we know whether the id exists, and is checked again then.
  if (!replace) allow(c, "write", FILES_COLLECTION, id);
  else if (!can(c.get("principal"), "write", { collection: FILES_COLLECTION, documentId: id }) && !can(c.get("principal"), "update", { collection: FILES_COLLECTION, documentId: id }))
    throw neitherWriteNorUpdate(FILES_COLLECTION);
  // One file a request here: a body declared past the file limit and any parts' headers would be
  // read for nothing (up to the limit) before its 413.
  const declared = Number(c.req.header("content-length") ?? NaN);
  if (declared > config().maxFileSize + MULTIPART_ALLOWANCE) throw payloadTooLarge(`File is larger than the maximum of ${config().maxFileSize} bytes`);
  const project = c.get("project");
  const { fields, uploads } = await readUploadBody(c, project._id);
  const { record, created } = await uploadToFiles(
    { projectId: project._id, filesSizeLimit: project.settings.files_size_limit ?? 0 },
    { id, replace, fields, uploads, authorize: (action) => allow(c, action, FILES_COLLECTION, id) },
  );
  return c.json(record, created ? 201 : 200);
}

function allow(c: Context<ApiEnv>, action: Action, collection: string, documentId?: string): void {
  if (!can(c.get("principal"), action, { collection, documentId })) throw forbidden(`Not allowed to ${action} in collection ${collection}`);
}


function projectId(c: Context<ApiEnv>): string {
  return c.get("project")._id;
}

/** What a `_files` upload's body may carry besides the file: boundaries, part headers, small value parts. */
const MULTIPART_ALLOWANCE = 1024 * 1024;
