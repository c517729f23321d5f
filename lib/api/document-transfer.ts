import { withActions } from "../http/actions";
import { methodNotAllowedHere } from "../http/route-methods";
import { refuseEncodedBody } from "../http/request-body";
import type { Context } from "hono";
import { can } from "../auth/can";
import type { Action } from "../auth/principal";
import { COLLECTION_ID } from "../collections/collection";
import { config } from "../config";
import { exportDocuments } from "../documents/export-documents";
import { IMPORT_MODES, importDocuments, type ImportMode } from "../documents/import-documents";
import { TRANSFER_FORMATS, type TransferFormat } from "../documents/transfer-format";
import { badRequest, forbidden, notFound, unsupportedMediaType } from "../errors";
import type { ApiEnv } from "../http/env";
import { JSON_BODY_LIMIT } from "../http/json-body";
import { pathParam, type ProjectRoutes } from "../http/project-routes";
import { readListQuery } from "../lists/list-query";
import { requestScope } from "./documents";

/**
 * Import and export of a collection's documents (issue 14; an Arca addition to the contract).
 *   GET  /collections/:c/export/?format=jsonl|csv&filter=&text=&sort=   the documents, streamed
 *   POST /collections/:c/import/?format=jsonl|csv&mode=create|upsert    body: the file -> report
 * Bound before the generic collection routes, which would read `export`/`import` as properties.
 * System collections (`_files`, `_users`, ...) are neither exported nor imported here: 404.
 */
const TYPES: Record<TransferFormat, string> = { jsonl: "application/x-ndjson", csv: "text/csv; charset=utf-8" };

export function bindDocumentTransferApi(app: ProjectRoutes): void {
  // Export is read, import is sent: other methods on them are 405, never a collection property.
  for (const method of ["post", "put", "patch", "delete"] as const) app[method]("/collections/:collection/export", methodNotAllowedHere(["GET", "HEAD"]));
  for (const method of ["get", "put", "patch", "delete"] as const) app[method]("/collections/:collection/import", methodNotAllowedHere(["POST"]));
  app.get("/collections/:collection/export", async (c) => {
    const collectionId = userCollection(c, "read");
    const params = new URL(c.req.url).searchParams;
    const format = formatOf(params.get("format")) ?? "jsonl";
    const query = readListQuery(params);
    const chunks = await exportDocuments(requestScope(c), { collectionId, format, filter: query.filter, text: query.text, sort: query.sort });
    return c.body(textStream(chunks), 200, {
      "Content-Type": TYPES[format],
      "Content-Disposition": `attachment; filename="${collectionId}.${format}"`,
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, no-store",
    });
  });
  // An import takes no verb: an X-Action is refused, never an import.
  app.post("/collections/:collection/import", withActions({}, async (c) => {
    const collectionId = userCollection(c, "write");
    const params = new URL(c.req.url).searchParams;
    const mode = modeOf(params.get("mode"));
    if (mode === "upsert") allow(c, "update", collectionId);
    refuseEncodedBody(c.req.raw.headers);
    const type = c.req.header("content-type") ?? "";
    if (/^multipart\//i.test(type)) throw unsupportedMediaType("Send the file itself as the request body (JSON Lines or CSV), not multipart/form-data");
    const format = formatOf(params.get("format")) ?? (/^text\/csv\b/i.test(type) ? "csv" : "jsonl");
    const length = c.req.header("content-length");
    const report = await importDocuments(requestScope(c), {
      collectionId,
      format,
      mode,
      body: chunksOf(c.req.raw.body),
      declaredLength: length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined,
      maxBytes: config().maxFileSize,
      maxRecordChars: JSON_BODY_LIMIT,
    });
    return c.json(report);
  }));
}

/** A user collection the principal may `action` in: system ones 404, malformed ids 400. */
function userCollection(c: Context<ApiEnv>, action: Action): string {
  const id = pathParam(c, "collection");
  if (id.startsWith("_")) throw notFound("Collection not found.");
  if (!COLLECTION_ID.test(id)) throw badRequest(`Invalid collection id: ${JSON.stringify(id)}`);
  allow(c, action, id);
  return id;
}

function allow(c: Context<ApiEnv>, action: Action, collectionId: string): void {
  if (!can(c.get("principal"), action, { collection: collectionId })) throw forbidden(`Not allowed to ${action} in collection ${collectionId}`);
}

function formatOf(value: string | null): TransferFormat | undefined {
  if (value === null || value === "") return undefined;
  if (!(TRANSFER_FORMATS as readonly string[]).includes(value)) throw badRequest(`format must be one of ${TRANSFER_FORMATS.join(", ")}`);
  return value as TransferFormat;
}

function modeOf(value: string | null): ImportMode {
  if (value === null || value === "") return "create";
  if (!(IMPORT_MODES as readonly string[]).includes(value)) throw badRequest(`mode must be one of ${IMPORT_MODES.join(", ")}`);
  return value as ImportMode;
}

/**
 * Pull-driven: the next batch is read from the database only when the client took the previous
 * one (back-pressure), and a client that goes away ends the generator (no further queries).
 */
function textStream(chunks: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await chunks.next();
          if (done) controller.close();
          else controller.enqueue(encoder.encode(value));
        } catch (error) {
          // Headers are gone: the client sees a cut-off body, the log says why.
          console.error("export failed mid-stream:", error);
          controller.error(error);
        }
      },
      async cancel() {
        await chunks.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

/** The request body's chunks; stopping early (413) cancels the rest rather than reading it. */
async function* chunksOf(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      yield value;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
  }
}

