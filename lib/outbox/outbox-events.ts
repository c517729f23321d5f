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
  after: OutboxPosition;
  limit: number;
  /** Only this project's events (a subscriber catching up), else every project's. */
  projectId?: string;
  /** Only these collections (with projectId). */
  collections?: string[];
  /** Include documents: always, never, or only for events this SQL condition (over `e`) selects. */
  documents: boolean | Sql;
}

export interface ReadResult {
  events: OutboxEvent[];
  /** Committed events exist beyond the horizon, held back by an older transaction still running. */
  held: boolean;
}

export async function readCommittedEvents(db: Queryable, options: ReadOptions): Promise<ReadResult> {
  const scope = options.projectId
    ? sql`e.project_id = ${options.projectId} AND ${options.collections ? sql`e.collection_id = ANY(${options.collections}::text[])` : raw("TRUE")}`
    : raw("TRUE");
  const documents = options.documents === true ? raw("coalesce(e.after, e.before)") : options.documents === false ? raw("NULL::jsonb") : sql`CASE WHEN ${options.documents} THEN coalesce(e.after, e.before) END`;
  const rows = await query<EventRow>(
    sql`WITH horizon AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin)
        SELECT e.id, e.txid::text AS txid, e.project_id, e.collection_id, e.document_id, e.kind, ${documents} AS document, e.created_at,
               (SELECT xmin FROM horizon)::text AS horizon
        FROM document_events e
        WHERE (e.txid, e.id) > (${options.after.txid}::xid8, ${options.after.id}::bigint)
          AND e.txid < (SELECT xmin FROM horizon) AND ${scope}
        ORDER BY e.txid, e.id
        LIMIT ${options.limit}`,
    db,
  );
  const events = rows.map(toEvent);
  // Only when the batch is not full: a full batch is read again at once anyway.
  const held = events.length < options.limit && (await eventsBeyondHorizon(db, options, rows[0]?.horizon));
  return { events, held };
}

async function eventsBeyondHorizon(db: Queryable, options: ReadOptions, horizon: string | undefined): Promise<boolean> {
  const [row] = await query<{ held: boolean }>(
    sql`SELECT EXISTS (SELECT 1 FROM document_events e
          WHERE e.txid >= ${horizon ? sql`${horizon}::xid8` : raw("pg_snapshot_xmin(pg_current_snapshot())")}
            AND (e.txid, e.id) > (${options.after.txid}::xid8, ${options.after.id}::bigint)) AS held`,
    db,
  );
  return row.held;
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
  const ta = BigInt(a.txid);
  const tb = BigInt(b.txid);
  if (ta !== tb) return ta < tb ? -1 : 1;
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
  horizon: string;
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
