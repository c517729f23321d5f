import { pool } from "../db/pool";
import { query } from "../db/query";
import { sql } from "../db/sql";
import { currentPosition, readCommittedEvents, type OutboxEvent, type OutboxPosition } from "../outbox/outbox-events";
import { runOutboxLoop, type OutboxLoop } from "../outbox/outbox-loop";
import { currentIncarnations, type ProjectIncarnation } from "../projects/project-incarnation";

/**
 * The change feed's one reader of the outbox per process (CONTRACT §13): a single loop, woken by
 * the process's LISTEN, reads each batch of committed events once and fans it out in memory to
 * every subscriber of the event's project: never a query per subscriber per event. Documents are
 * read only for projects someone subscribes to. A subscriber joining or resuming first catches up
 * from its own position with its own reads, then takes the hub's events from where it caught up,
 * so nothing is missed and nothing repeated.
 */
export interface FeedSubscriber {
  projectId: string;
  /** The project it subscribed to: a project made later under the same id is another one. */
  incarnation: ProjectIncarnation;
  /** The collections it follows: the hub hands it no other collection's events. */
  collections: ReadonlySet<string>;
  /** Takes a live event in commit order (already of its project). */
  deliver(event: OutboxEvent): void;
  /** Ends it: its project was deleted (and its id perhaps taken again). */
  end(): void;
}

interface HubState {
  subscribers: Map<string, Set<FeedSubscriber>>;
  count: number;
  cursor?: OutboxPosition;
  /** Nobody listened at the last step, so the cursor was left behind: a joiner moves it to now. */
  stale?: boolean;
  loop?: OutboxLoop;
  starting?: Promise<void>;
}

const holder = globalThis as typeof globalThis & { __arcaFeedHub?: HubState };
const BATCH = 1000;

function hub(): HubState {
  holder.__arcaFeedHub ??= { subscribers: new Map(), count: 0 };
  return holder.__arcaFeedHub;
}

/**
 * Adds a subscriber; from then on it gets every event of its project past the hub's cursor.
 * Returns that cursor (the subscriber's catch-up must reach it) and the unsubscribe.
 */
export async function joinFeed(subscriber: FeedSubscriber): Promise<{ hubPosition: OutboxPosition; leave: () => void }> {
  const h = hub();
  await ensureRunning(h);
  if (h.stale) {
    const now = await currentPosition(pool());
    // Another joiner may have moved it meanwhile (and steps may have run from there): keep theirs.
    if (h.stale) {
      h.cursor = now;
      h.stale = false;
    }
  }
  let set = h.subscribers.get(subscriber.projectId);
  if (!set) h.subscribers.set(subscriber.projectId, (set = new Set()));
  set.add(subscriber);
  h.count++;
  let left = false;
  return {
    hubPosition: h.cursor!,
    leave: () => {
      if (left) return;
      left = true;
      h.count--;
      set.delete(subscriber);
      if (set.size === 0 && h.subscribers.get(subscriber.projectId) === set) h.subscribers.delete(subscriber.projectId);
    },
  };
}

async function ensureRunning(h: HubState): Promise<void> {
  if (h.loop) return;
  h.starting ??= (async () => {
    h.cursor = await currentPosition(pool());
    // The recheck covers a signal lost with another process's NOTIFY connection (lib/outbox);
    // tests stretch it to prove the signal itself crosses processes.
    h.loop = runOutboxLoop("feed", () => step(h), { idleRecheckMs: Number(process.env.ARCA_FEED_RECHECK_MS || 1000) });
  })().finally(() => (h.starting = undefined));
  await h.starting;
}

async function step(h: HubState) {
  if (h.count === 0) {
    // Nobody listens: no query per commit; the next joiner starts the hub at the present.
    h.stale = true;
    return { more: false, held: false };
  }
  // Documents only for the collections someone follows (JSON parsed for nobody costs CPU).
  const followed = new Set<string>();
  const pairs = { projects: [] as string[], collections: [] as string[] };
  for (const [projectId, subscribers] of h.subscribers)
    for (const subscriber of subscribers)
      for (const collectionId of subscriber.collections) {
        const key = `${projectId}\u0000${collectionId}`;
        if (followed.has(key)) continue;
        followed.add(key);
        pairs.projects.push(projectId);
        pairs.collections.push(collectionId);
      }
  const { events, held, full } = await readCommittedEvents(pool(), {
    after: h.cursor!,
    limit: BATCH,
    documents: sql`(e.project_id, e.collection_id) IN (SELECT * FROM unnest(${pairs.projects}::text[], ${pairs.collections}::text[]))`,
  });
  await endSubscribersOfGoneProjects(h, events);
  for (const event of events) {
    h.cursor = event;
    const subscribers = h.subscribers.get(event.projectId);
    if (!subscribers || event.document === null) continue;
    for (const subscriber of subscribers) if (subscriber.collections.has(event.collectionId)) subscriber.deliver(event);
  }
  return { more: full, held };
}

/**
 * Ends the subscribers of the batch's projects that were deleted since they subscribed, before
 * any of the batch is handed out. Asked after the batch was read: an event of a project made
 * again under the same id commits after that project's row, so the row is seen here and the old
 * subscribers never get the new project's changes. (A project deleted and not made again ends
 * its subscribers at their credential recheck, or here at its next event.)
 */
async function endSubscribersOfGoneProjects(h: HubState, events: OutboxEvent[]): Promise<void> {
  const followed = [...new Set(events.map((e) => e.projectId))].filter((id) => h.subscribers.has(id));
  if (followed.length === 0) return;
  const incarnations = await currentIncarnations(followed);
  for (const projectId of followed)
    for (const subscriber of [...(h.subscribers.get(projectId) ?? [])]) if (incarnations.get(projectId) !== subscriber.incarnation) subscriber.end();
}

/** Events of one project (and collections) past `after`, for a subscriber catching up. */
export async function readProjectEvents(projectId: string, collections: string[], after: OutboxPosition, limit = 500, maxBytes?: number) {
  return readCommittedEvents(pool(), { after, limit, projectId, collections, documents: true, maxBytes });
}

/**
 * Where a fresh subscriber starts: the newest event of the project's collections below the
 * commit horizon, and the ids of events already committed but held back behind an older running
 * transaction (it must not get those either: they happened before it came), read in one snapshot.
 */
export async function latestProjectPosition(projectId: string, collections: string[]): Promise<{ position: OutboxPosition; before: Set<number> }> {
  const [row] = await query<{ txid: string | null; id: number | null; held: number[] | null }>(
    sql`WITH h AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin),
        mine AS (SELECT e.txid, e.id FROM document_events e WHERE e.project_id = ${projectId} AND e.collection_id = ANY(${collections}::text[])),
        -- Ordered by the xid8 column itself: an output column \`txid::text AS txid\` would sort as
        -- text, and "999" > "1000" started new subscribers at an old event.
        newest AS (SELECT mine.txid, mine.id FROM mine, h WHERE mine.txid < h.xmin ORDER BY mine.txid DESC, mine.id DESC LIMIT 1)
        SELECT (SELECT txid::text FROM newest) AS txid,
               (SELECT id FROM newest) AS id,
               (SELECT array_agg(id) FROM mine, h WHERE mine.txid >= h.xmin) AS held`,
  );
  const position = row?.txid ? { txid: row.txid, id: Number(row.id) } : { txid: "0", id: 0 };
  return { position, before: new Set((row?.held ?? []).map(Number)) };
}

/** The position of event `id` of the project, with its age, or undefined when it is gone. */
export async function eventPosition(projectId: string, id: number): Promise<(OutboxPosition & { createdAt: Date }) | undefined> {
  const [row] = await query<{ txid: string; id: number; created_at: Date }>(
    sql`SELECT e.txid::text AS txid, e.id, e.created_at FROM document_events e WHERE e.project_id = ${projectId} AND e.id = ${id}`,
  );
  return row ? { txid: row.txid, id: Number(row.id), createdAt: row.created_at } : undefined;
}

/** Stops the hub's loop (server shutdown, before the LISTEN connection closes). */
export async function stopFeedHub(): Promise<void> {
  const h = holder.__arcaFeedHub;
  if (!h) return;
  await h.starting?.catch(() => {});
  const loop = h.loop;
  h.loop = undefined;
  await loop?.stop();
}
