import { Hono } from "hono";
import { getPathNoStrict } from "hono/utils/url";
import type { ApiEnv } from "../http/env";
import { edgeHeaders, headLength } from "../http/edge-headers";
import { errorResponse } from "../http/errors";
import { notFoundOrMethodNotAllowed } from "../http/route-methods";
import { projectRoutes } from "../http/project-routes";
import { readRequestContext } from "../http/request-context";
import { bindCollectionsApi } from "./collections";
import { bindDebugApi } from "./debug";
import { bindDocumentTransferApi } from "./document-transfer";
import { bindDocumentsApi } from "./documents";
import { bindEventsApi } from "./events";
import { bindFilesApi } from "./files";
import { bindHealthApi } from "./health";
import { bindHooksApi } from "./hooks";
import { bindInfoApi } from "./info";
import { bindInvitationsApi } from "./invitations";
import { bindMembersApi } from "./members";
import { bindNotificationsApi } from "./notifications";
import { bindSystemRecordProperties } from "./system-record-properties";
import { bindProjectsApi } from "./projects";
import { bindTokensApi } from "./tokens";
import { bindUsageApi } from "./usage";
import { bindUserApi } from "./user";

/**
 * The path routes are matched on: Hono's (percent-decoded once, `%25` kept), with line terminators
 * encoded again. Its router's patterns match any character but those (a regex `.`), so a key
 * holding a newline (`.../documents/d1/a%0Ab/`) found no route (404 Page not found); a parameter
 * is decoded when read, so the handler still sees the newline.
 */
function routingPath(request: Request): string {
  return getPathNoStrict(request).replace(/[\n\r\u2028\u2029]/g, (c) => encodeURIComponent(c));
}

/**
 * The whole `/api/`: one Hono app, served by both doors (the catch-all Next route handler and
 * `npm start`'s custom server). Not strict (`routingPath` is built on Hono's `getPathNoStrict`):
 * every path answers with and without its trailing slash, never with a redirect (a 3xx breaks
 * POST clients).
 */
export function createApiApp(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>({ getPath: routingPath }).basePath("/api");
  app.onError((error, c) => errorResponse(c, error));
  app.notFound(notFoundOrMethodNotAllowed(app));
  // CORS, preflights and frame protection first: they hold for every answer, before any lookup.
  app.use(edgeHeaders);
  app.use(headLength);
  app.use(readRequestContext);

  bindHealthApi(app);
  // Account routes live on the bare host; everything else belongs to a project.
  bindUserApi(app);
  bindProjectsApi(app);
  bindInvitationsApi(app);
  const project = projectRoutes(app);
  bindInfoApi(project);
  bindTokensApi(project);
  // Generic collection and document routes: they step aside (next()) for system collections
  // with their own routes, wherever those are bound. Documents before collections.
  bindFilesApi(project); // before documents: `.../content/` paths are bytes, not properties
  bindHooksApi(project);
  bindEventsApi(project); // before collections: `.../events/` is the feed, not a property
  bindDocumentTransferApi(project); // before collections: `.../export/`, `.../import/` likewise
  bindUsageApi(project);
  bindDebugApi(project);
  bindDocumentsApi(project);
  bindCollectionsApi(project);
  bindMembersApi(project);
  bindNotificationsApi(project);
  bindSystemRecordProperties(app, project); // last: only what no system collection's own routes took
  return app;
}

let shared: Hono<ApiEnv> | undefined;

/** The process's API app, built once. */
export function apiApp(): Hono<ApiEnv> {
  shared ??= createApiApp();
  return shared;
}
