import { isSystemName } from "../collections/system-collections";
import { methodNotAllowedHere } from "../http/route-methods";
import type { Context } from "hono";
import { authenticateProjectRequest } from "../auth/authenticate";
import { can, mayReach } from "../auth/can";
import { badRequest, forbidden, notFound } from "../errors";
import { nodeResponseSink, openFeed, webStreamSink, type FeedOptions } from "../feed/feed-stream";
import { alreadySent } from "../http/already-sent";
import { nodeResponse } from "../http/request-body";
import type { ApiEnv } from "../http/env";
import { pathParam, type ProjectRoutes } from "../http/project-routes";
import { defaultSettings, parseDuration } from "../projects/project";
import { matchFilter, parseFilter, type FilterNode } from "../query";
import type { Json } from "../query/types";
import { recordUsage } from "../usage/usage-meter";
import { listParam } from "../lists/list-query";
import { projectFields } from "../lists/project-fields";

/**
 * The change feed (CONTRACT §13), Server-Sent Events.
 *   GET /collections/:c/events/                 one collection's changes
 *   GET /events/?collections=a,b                several collections' changes
 * Query: `filter` (§3 syntax, matched per document), `last_event_id` (or header Last-Event-ID)
 * to resume; `?token=` works, since EventSource cannot set headers.
 */
const COLLECTION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function bindEventsApi(app: ProjectRoutes): void {
  app.get("/collections/:collection/events", (c) => feed(c, [pathParam(c, "collection")]));
  // A feed is only read; other methods here are not a collection property's (`events` is none).
  for (const method of ["post", "put", "patch", "delete"] as const) app[method]("/collections/:collection/events", methodNotAllowedHere(["GET", "HEAD"]));
  app.get("/events", (c) => {
    // Repeated (`?collections=a&collections=b`) as well as comma-separated: none is ignored.
    const names = (c.req.queries("collections") ?? []).flatMap((value) => value.split(",")).map((s) => s.trim()).filter(Boolean);
    if (names.length === 0) throw badRequest("collections is required: a comma-separated list of collection ids");
    if (names.length > 100) throw badRequest("At most 100 collections per feed");
    return feed(c, [...new Set(names)]);
  });
}

async function feed(c: Context<ApiEnv>, collections: string[]): Promise<Response> {
  for (const id of collections) {
    // `_files` has a feed (records created and deleted); other system collections have none.
    if (id.startsWith("_") && id !== "_files")
      throw notFound(isSystemName(id) ? `${id} has no change feed: the feed follows user collections and _files` : "Collection not found.");
    if (!COLLECTION_ID.test(id) && id !== "_files") throw badRequest(`Invalid collection id: ${JSON.stringify(id)}`);
  }
  const principal = c.get("principal");
  for (const id of collections) if (!mayReach(principal, "read", id)) throw forbidden(`Not allowed to read in collection ${id}`);
  // A list's full-text search has no meaning on a stream of changes: refused, never ignored.
  if (c.req.query("text") !== undefined) throw badRequest("text is not taken by the change feed: select changes with filter");
  const filterParam = c.req.query("filter");
  let filter: FilterNode | undefined;
  if (filterParam) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(filterParam);
    } catch {
      throw badRequest("Malformed JSON in filter");
    }
    filter = parseFilter(parsed);
  }
  // `fields` / `fields_exclude` shape each event's document as they shape a list's (after the filter,
  // which sees the whole document).
  const shape = { fields: listParam(c.req.query("fields") ?? null), fieldsExclude: listParam(c.req.query("fields_exclude") ?? null) };
  const project = c.get("project");
  // An empty header (some proxies and clients send one) does not hide the query parameter.
  const lastEventId = readLastEventId(c.req.header("last-event-id")?.trim() || c.req.query("last_event_id"));
  const ttl = parseDuration(project.settings.events_ttl ?? defaultSettings.events_ttl) ?? 0;
  // HEAD: what a GET would answer up to its first byte, and done: no subscription, no open stream.
  if (c.req.method === "HEAD") return new Response(null, { headers: { "content-type": FEED_HEADERS["content-type"], "cache-control": FEED_HEADERS["cache-control"] } });
  // The credential as last checked: permissions narrowed since the stream opened apply to it.
  let current = principal;
  const credentials = c.get("credentials");
  const incarnation = c.get("projectIncarnation");
  const options: FeedOptions = {
    projectId: project._id,
    incarnation,
    collections,
    matches: (document) => !filter || matchFilter(filter, document as Json),
    shape: shape.fields || shape.fieldsExclude ? (document) => projectFields(document, shape) : undefined,
    mayRead: (collection, documentId) => can(current, "read", { collection, documentId }),
    stillAllowed: async () => {
      const auth = await authenticateProjectRequest(project._id, credentials);
      if (auth.incarnation !== incarnation) return false;
      current = auth.principal;
      return collections.every((id) => mayReach(current, "read", id));
    },
    lastEventId,
    eventsTtlMs: ttl,
    onClose: (bytesOut) => recordUsage(project._id, { bytesIn: 0, bytesOut }),
  };
  const outgoing = nodeResponse(c);
  if (outgoing) {
    // The fast door: written straight to the socket (edge headers are already set on it).
    await openFeed(options, () => nodeResponseSink(outgoing, FEED_HEADERS));
    return alreadySent({ "content-type": FEED_HEADERS["content-type"] });
  }
  const { stream } = await openFeed(options, webStreamSink);
  return new Response(stream, { headers: FEED_HEADERS });
}

const FEED_HEADERS: Record<string, string> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
  connection: "keep-alive",
};

function readLastEventId(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  if (!/^\d{1,18}$/.test(value.trim())) throw badRequest("Last-Event-ID must be an event id from this feed");
  return Number(value.trim());
}

