import { raw, sql, type Sql } from "../db/sql";
import { query, type Queryable } from "../db/query";

/**
 * The outbox (`document_events`): every document write records its event in the writing
 * transaction. Readers take events in commit order and only committed ones: ordered by the writing
 * transaction's id (`txid`, xid8) then the event id, and only from transactions older than every
 * transaction still running (`txid < pg_snapshot_xmin(pg_current_snapshot())`). A plain "id > last
 * seen" would skip a slow transaction's event that commits after a later one (RECIPES.md).
 * Hooks (lib/hooks) and the change feed (lib/feed) both read through here.
 */
export type EventKind = "created" | "updated" | "deleted";

/** A place in the outbox: the last event taken. `txid` is xid8 as decimal text. */
export interface OutboxPosition {
  txid: string;
  id: number;
}

export const OUTBOX_START: OutboxPosition = { txid: "0", id: 0 };

export interface OutboxEvent {
  id: number;
  txid: string;
  projectId: string;
  collectionId: string;
  documentId: string;
  kind: EventKind;
  /** The document as stored (created, updated) or as it was (deleted); null when not asked for. */
  document: Record<string, unknown> | null;
  createdAt: Date;
}

export interface ReadOptions {
  /**
   * Where to start: a position, or the named consumer's cursor in `outbox_cursors` (read in the
   * same statement), or the later of that cursor and a position the consumer knows to be done.
   */
  after: OutboxPosition | { cursor: string; atLeast?: OutboxPosition };
  limit: number;
  /** Only this project's events (a subscriber catching up), else every project's. */
  projectId?: string;
  /** Only these collections (with projectId). */
  collections?: string[];
  /** Include documents: always, never, or only for events this SQL condition (over `e`) selects. */
  documents: boolean | Sql;
  /**
   * Stop the page once the documents taken add up to this many bytes of JSON text (the event
   * that crosses it is the last; one larger than it comes alone). Default `PAGE_BYTES`.
   */
  maxBytes?: number;
}

/**
 * Documents may be up to the JSON body limit (16 MiB) each: a page of 500 such events read at once
 * would be gigabytes in one process. Pages stop at this many bytes of document text instead.
 */
export const PAGE_BYTES = 8 * 1024 * 1024;

export interface ReadResult {
  events: OutboxEvent[];
  /** Committed events exist beyond the horizon, held back by an older transaction still running. */
  held: boolean;
  /** The page stopped at `limit` or `maxBytes`: more may follow at once. */
  full: boolean;
  /** Where the read started (the cursor's position when read by name). */
  after: OutboxPosition;
}

/**
 * ONE statement (hot: the hooks dispatcher and the feed hub run it after every commit): the page
 * of events, where it started, and whether more wait behind the horizon. The statement text does
 * not depend on the values, so it is prepared once per connection.
 */
export async function readCommittedEvents(db: Queryable, options: ReadOptions): Promise<ReadResult> {
  const scope = options.projectId
    ? sql`e.project_id = ${options.projectId} AND ${options.collections ? sql`e.collection_id = ANY(${options.collections}::text[])` : raw("TRUE")}`
    : raw("TRUE");
  const documents = options.documents === true ? raw("coalesce(e.after, e.before)") : options.documents === false ? raw("NULL::jsonb") : sql`CASE WHEN ${options.documents} THEN coalesce(e.after, e.before) END`;
  // Events written before migration 0015 have no size: their stored (maybe compressed) size stands in.
  const size = raw("coalesce(e.size, pg_column_size(coalesce(e.after, e.before)), 0)");
  const taken = options.documents === true ? size : options.documents === false ? raw("0") : sql`CASE WHEN ${options.documents} THEN ${size} ELSE 0 END`;
  const after = options.after;
  const start = !("cursor" in after)
    ? sql`SELECT ${after.txid}::xid8 AS txid, ${after.id}::bigint AS id`
    : after.atLeast
      ? sql`SELECT t.txid, t.id FROM (SELECT c.txid, c.event_id AS id FROM outbox_cursors c WHERE c.name = ${after.cursor}
              UNION ALL SELECT ${after.atLeast.txid}::xid8, ${after.atLeast.id}::bigint) t ORDER BY t.txid DESC, t.id DESC LIMIT 1`
      : sql`SELECT c.txid, c.event_id AS id FROM outbox_cursors c WHERE c.name = ${after.cursor}`;
  const rows = await query<EventRow>(
    sql`WITH horizon AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin),
        start AS (${start}),
        candidates AS (
          SELECT e.id, e.txid, ${taken} AS size
          FROM document_events e
          WHERE (e.txid, e.id) > ((SELECT txid FROM start), (SELECT id FROM start)) AND e.txid < (SELECT xmin FROM horizon) AND ${scope}
          ORDER BY e.txid, e.id
          LIMIT ${options.limit}
        ),
        sized AS (
          SELECT c.id, sum(c.size) OVER (ORDER BY c.txid, c.id) - c.size AS bytes_before FROM candidates c
        ),
        -- The documents are read only for the events kept (joined back by id, never carried through
        -- the candidates).
        page AS (
          SELECT e.id, e.txid, e.project_id, e.collection_id, e.document_id, e.kind, ${documents} AS document, e.created_at
          FROM sized k JOIN document_events e ON e.id = k.id
          WHERE k.bytes_before < ${options.maxBytes ?? PAGE_BYTES}
        ),
        fullness AS (
          SELECT (SELECT count(*) FROM candidates) = ${options.limit} OR (SELECT count(*) FROM page) < (SELECT count(*) FROM candidates) AS is_full
        )
        SELECT s.txid::text AS start_txid, s.id AS start_id, (SELECT is_full FROM fullness) AS full_page,
               -- Only when the page is not full: a full page is read again at once anyway. (The start
               -- is always below the horizon, so "beyond the horizon" is beyond the start too.)
               NOT (SELECT is_full FROM fullness)
                 AND (SELECT e.txid FROM document_events e WHERE e.txid >= (SELECT xmin FROM horizon) ORDER BY e.txid LIMIT 1) IS NOT NULL AS held,
               p.id, p.txid::text AS txid, p.project_id, p.collection_id, p.document_id, p.kind, p.document, p.created_at
        FROM start s LEFT JOIN page p ON TRUE
        ORDER BY p.txid, p.id`,
    db,
    { prepared: true },
  );
  const head = rows[0];
  if (!head) return { events: [], held: false, full: false, after: OUTBOX_START }; // a named cursor that does not exist
  return {
    events: rows.filter((row) => row.id !== null).map(toEvent),
    held: head.held,
    full: head.full_page,
    after: { txid: head.start_txid, id: Number(head.start_id) },
  };
}

/**
 * One collection's committed events past a named cursor, in commit order, with their documents,
 * whether or not an older transaction still holds them behind the horizon (which
 * `readCommittedEvents` waits for): what a consumer has not reached yet. Pages of `limit` after
 * `after` (none: from the cursor).
 */
export async function readEventsPastCursor(
  db: Queryable,
  options: { cursor: string; projectId: string; collectionId: string; kinds: EventKind[]; after?: OutboxPosition; limit: number; visibleIn?: string },
): Promise<OutboxEvent[]> {
  const from = options.after
    ? sql`(${options.after.txid}::xid8, ${options.after.id}::bigint)`
    : sql`(SELECT c.txid, c.event_id FROM outbox_cursors c WHERE c.name = ${options.cursor})`;
  const rows = await query<EventRow>(
    sql`SELECT e.id, e.txid::text AS txid, e.project_id, e.collection_id, e.document_id, e.kind, coalesce(e.after, e.before) AS document, e.created_at
        FROM document_events e
        WHERE e.project_id = ${options.projectId} AND e.collection_id = ${options.collectionId} AND e.kind = ANY(${options.kinds}::text[])
          AND (e.txid, e.id) > ${from}
          AND ${options.visibleIn === undefined ? raw("TRUE") : sql`pg_visible_in_snapshot(e.txid, ${options.visibleIn}::pg_snapshot)`}
        ORDER BY e.txid, e.id
        LIMIT ${options.limit}`,
    db,
  );
  return rows.map(toEvent);
}

/**
 * Whether the transaction `txid` had committed when `snapshot` (`pg_snapshot` text,
 * `xmin:xmax:xip,...`) was taken, as PostgreSQL's `pg_visible_in_snapshot` answers.
 */
export function visibleInSnapshot(txid: string, snapshot: string): boolean {
  const [xmin, xmax, running] = snapshot.split(":");
  const id = BigInt(txid);
  if (id < BigInt(xmin)) return true;
  if (id >= BigInt(xmax)) return false;
  return !(running ?? "").split(",").some((x) => x !== "" && BigInt(x) === id);
}

/** The newest committed position (for a consumer that starts at "now"). */
export async function currentPosition(db: Queryable, projectId?: string): Promise<OutboxPosition> {
  const [row] = await query<{ txid: string; id: number }>(
    sql`SELECT e.txid::text AS txid, e.id FROM document_events e
        WHERE e.txid < pg_snapshot_xmin(pg_current_snapshot()) AND ${projectId ? sql`e.project_id = ${projectId}` : raw("TRUE")}
        ORDER BY e.txid DESC, e.id DESC LIMIT 1`,
    db,
  );
  return row ? { txid: row.txid, id: Number(row.id) } : OUTBOX_START;
}

export function comparePositions(a: OutboxPosition, b: OutboxPosition): number {
  // xid8 as decimal text without leading zeros: the longer is the larger, else compare as text
  // (no BigInt parse: the feed compares every event for every subscriber).
  if (a.txid !== b.txid) {
    if (a.txid.length !== b.txid.length) return a.txid.length < b.txid.length ? -1 : 1;
    return a.txid < b.txid ? -1 : 1;
  }
  return a.id - b.id;
}

interface EventRow {
  id: number;
  txid: string;
  project_id: string;
  collection_id: string;
  document_id: string;
  kind: EventKind;
  document: Record<string, unknown> | null;
  created_at: Date;
  start_txid: string;
  start_id: number;
  held: boolean;
  full_page: boolean;
}

function toEvent(row: EventRow): OutboxEvent {
  return {
    id: Number(row.id),
    txid: row.txid,
    projectId: row.project_id,
    collectionId: row.collection_id,
    documentId: row.document_id,
    kind: row.kind,
    document: row.document,
    createdAt: row.created_at,
  };
}
