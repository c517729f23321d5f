import { query, queryOne, transaction, type Queryable } from "../db/query";
import { raw, sql, type Sql } from "../db/sql";
import { conflict, notFound } from "../errors";
import { writeNotification } from "../members/notifications";
import { timeOrderedUuid } from "./hook-history";
import type { AttemptRecord } from "./deliver-hook";
import type { Hook } from "./hook";

/**
 * The delivery queue, which is also `_hooks_history`: one row per (hook, event). A row is
 * `queued` until an attempt succeeds (`success`) or the attempts run out (`error`). Workers of any
 * process claim due rows with `FOR UPDATE SKIP LOCKED` and a lease; a crashed process's claims
 * come back when the lease ends, so delivery is at least once. Per hook, one document's
 * deliveries go strictly in commit order: a row is due only when no earlier queued row of the
 * same hook and document remains.
 */
export const MAX_ATTEMPTS = 10;

export interface ClaimedDelivery {
  seq: number;
  id: string;
  projectId: string;
  trigger: string;
  attempt: number;
  hook: Hook;
  document: unknown;
}

interface ClaimedRow {
  seq: number;
  id: string;
  project_id: string;
  trigger: string;
  attempt: number;
  hook: Hook;
  document: unknown;
}

/**
 * Claims up to `limit` due deliveries, so that at most `caps.perHook` of one hook and
 * `caps.perProject` of one project are in flight in this process, counting those already there
 * (`inFlight`, by `project/hook` key).
 */
export interface ClaimCaps {
  perHook: number;
  perProject: number;
}

export async function claimDueDeliveries(limit: number, caps: ClaimCaps, inFlight: ReadonlyMap<string, number>): Promise<ClaimedDelivery[]> {
  const rows = await transaction(async (client) => {
    // CLAIM_PLANNING: the walk of the due index in its order must not depend on statistics.
    // The commit need not wait for its WAL flush: a claim lost in a crash is made again.
    await client.query(`${CLAIM_PLANNING}; SET LOCAL synchronous_commit = off`);
    return query<ClaimedRow>(claimStatement(limit, caps, inFlight), client, { prepared: true });
  });
  return rows.map((r) => ({ seq: Number(r.seq), id: r.id, projectId: r.project_id, trigger: r.trigger, attempt: r.attempt, hook: r.hook, document: r.document }));
}

/**
 * How the claim is planned. The queue's statistics are often stale (taken when few deliveries
 * were queued, then a burst), and on an estimate of a near-empty queue every plan looks as cheap
 * as walking the due index in order and stopping at the first rows: the planner read the whole
 * queue through another index or a bitmap and sorted it (143 ms per claim in bench:hooks, minutes
 * at 60,000 queued). Without sorts, the ordered walk is the one plan left for the ORDER BY.
 */
export const CLAIM_PLANNING = "SET LOCAL enable_sort = off; SET LOCAL enable_bitmapscan = off";

/**
 * The due index's own predicate clause (migration 0021), always true. Only the statements that
 * should walk that index (the claim's walk, the workers' timer) say it, so the planner can use
 * the index for nothing else: it had served the claim's order check as a skip scan on `seq`.
 */
const dueIndexed = (column: string) => raw(`${column} > '-infinity'`);

/** Keys at their cap (`busy`), and the others with how many they have in flight (`running`). */
function splitAtCap(inFlight: ReadonlyMap<string, number>, cap: number): { busy: string[]; running: [string, number][] } {
  const entries = [...inFlight];
  return { busy: entries.filter(([, n]) => n >= cap).map(([key]) => key), running: entries.filter(([, n]) => n < cap) };
}

/** The claim's statement (exported for the test of its plan). */
export function claimStatement(limit: number, caps: ClaimCaps, inFlight: ReadonlyMap<string, number>): Sql {
  const { perHook, perProject } = caps;
  const { busy: busyHooks, running } = splitAtCap(inFlight, perHook);
  // Per project too: one project's hung receivers (several hooks, each within its own cap) held
  // every slot, and other projects' deliveries waited for their timeouts.
  const byProject = new Map<string, number>();
  for (const [key, n] of inFlight) {
    const project = key.slice(0, key.indexOf("/"));
    byProject.set(project, (byProject.get(project) ?? 0) + n);
  }
  const { busy: busyProjects, running: projectsRunning } = splitAtCap(byProject, perProject);
  // Prepared (planning took 2 ms of a 7 ms claim): the window's LIMIT is written into the text,
  // as one of a few powers of two, since a generic plan cannot see a parameter's value there.
  const window = Math.min(512, 2 ** Math.ceil(Math.log2(Math.max(4, limit * 4))));
  return sql`WITH candidates AS (
          -- The window ranks the first due rows only: over the whole queue it read every queued
          -- delivery on each claim, and a backlog of 10,000 made each claim cost tens of ms.
          -- Ranked per hook first, then what passes per project: ranked per project among all, a
          -- capped hook's waiting rows took the places of its project's other hooks.
          SELECT capped.seq FROM (
            SELECT hook_ranked.seq, hook_ranked.project_id,
                   row_number() OVER (PARTITION BY hook_ranked.project_id ORDER BY hook_ranked.next_attempt_at, hook_ranked.seq) AS project_rn
            FROM (
              SELECT due.seq, due.project_id, due.hook_id, due.next_attempt_at,
                     row_number() OVER (PARTITION BY due.project_id, due.hook_id ORDER BY due.next_attempt_at, due.seq) AS rn
              FROM (
                -- The due index walked in order (CLAIM_PLANNING), and every other table probed per row
                -- walked (OFFSET 0 keeps a subquery a probe): as joins, on statistics taken when few
                -- were queued, the planner read every queued row (as an anti-join, or once per hook).
                SELECT d.seq, d.project_id, d.hook_id, d.next_attempt_at
                FROM hook_deliveries d
                WHERE d.state = 'queued' AND ${dueIndexed("d.next_attempt_at")} AND d.next_attempt_at <= now() AND (d.lease_until IS NULL OR d.lease_until < now())
                  AND NOT ((d.project_id || '/' || d.hook_id) = ANY(${busyHooks}::text[])) AND NOT (d.project_id = ANY(${busyProjects}::text[]))
                  AND EXISTS (SELECT 1 FROM hooks h WHERE h.project_id = d.project_id AND h.id = d.hook_id AND h.is_active OFFSET 0)
                  AND NOT EXISTS (SELECT 1 FROM hook_deliveries p WHERE p.project_id = d.project_id AND p.hook_id = d.hook_id
                                  AND p.document_id = d.document_id AND p.state = 'queued' AND p.seq < d.seq AND d.event_id IS NOT NULL
                                  OFFSET 0)
                ORDER BY d.next_attempt_at, d.seq
                LIMIT ${raw(String(window))}
              ) due
            ) hook_ranked
            LEFT JOIN unnest(${running.map(([key]) => key)}::text[], ${running.map(([, n]) => n)}::int[]) AS flying(key, n)
              ON flying.key = hook_ranked.project_id || '/' || hook_ranked.hook_id
            WHERE hook_ranked.rn <= ${perHook} - coalesce(flying.n, 0)
          ) capped
          LEFT JOIN unnest(${projectsRunning.map(([project]) => project)}::text[], ${projectsRunning.map(([, n]) => n)}::int[]) AS project_flying(project_id, n)
            ON project_flying.project_id = capped.project_id
          WHERE capped.project_rn <= ${perProject} - coalesce(project_flying.n, 0)
          ORDER BY capped.seq LIMIT ${limit}
        ), locked AS (
          -- By primary key: joined, a queue estimated near empty was read whole once per
          -- candidate, and a plain state = 'queued' lets the planner scan a queued-only index whole
          -- instead (state || '' matches no index's predicate; its meaning is the same).
          SELECT d.seq FROM hook_deliveries d
          WHERE d.seq = ANY(ARRAY(SELECT seq FROM candidates)) AND d.state || '' = 'queued' AND (d.lease_until IS NULL OR d.lease_until < now())
          FOR UPDATE OF d SKIP LOCKED
        )
        -- The hook read per row, not joined: joined, the planner could walk an index per hook.
        UPDATE hook_deliveries d SET attempt = d.attempt + 1,
          lease_until = now() + (SELECT make_interval(secs => 5 + 6 * ((h.data->'timeout'->>'connect')::float8 + (h.data->'timeout'->>'read')::float8))
                                 FROM hooks h WHERE h.project_id = d.project_id AND h.id = d.hook_id)
        WHERE d.seq = ANY(ARRAY(SELECT seq FROM locked)) AND EXISTS (SELECT 1 FROM hooks h WHERE h.project_id = d.project_id AND h.id = d.hook_id OFFSET 0)
        RETURNING d.seq, d.id, d.project_id, d.trigger, d.attempt, (SELECT h.data FROM hooks h WHERE h.project_id = d.project_id AND h.id = d.hook_id) AS hook,
          coalesce(d.payload, (SELECT coalesce(e.after, e.before) FROM document_events e WHERE e.id = d.event_id)) AS document`;
}

/** Seconds before attempt `attempt + 1` after attempt `attempt` failed. */
export function retryDelay(strategy: Hook["retry"]["strategy"], attempt: number): number {
  return strategy === "constant" ? 2 : 2 ** attempt;
}

/**
 * Records an attempt's outcome. A failure with attempts left is queued again after the hook's
 * back-off (or the receiver's Retry-After); the last failure ends in `error` and a notification.
 * Outcomes are written in batches (one UPDATE for every outcome of a tick) without waiting for the
 * WAL flush (`synchronous_commit = off`): an outcome lost in a crash only means that delivery is
 * made again, which at-least-once allows, and it saves a disk flush per delivery.
 */
export function recordAttempt(delivery: ClaimedDelivery, outcome: AttemptRecord, options: { retry?: boolean } = {}): Promise<void> {
  const retry = options.retry ?? true;
  const final = outcome.ok || !retry || delivery.attempt >= MAX_ATTEMPTS;
  if (!outcome.ok && final && retry) return recordExhausted(delivery, outcome);
  const delay = final ? 0 : (outcome.retryAfter ?? retryDelay(delivery.hook.retry.strategy, delivery.attempt));
  return new Promise((resolve, reject) => {
    pendingOutcomes.push({ seq: delivery.seq, state: outcome.ok ? "success" : final ? "error" : "queued", delay, outcome, resolve, reject });
    if (pendingOutcomes.length === 1) setImmediate(flushOutcomes);
  });
}

interface PendingOutcome {
  seq: number;
  state: string;
  delay: number;
  outcome: AttemptRecord;
  resolve(): void;
  reject(error: unknown): void;
}

let pendingOutcomes: PendingOutcome[] = [];

async function flushOutcomes(): Promise<void> {
  const batch = pendingOutcomes;
  pendingOutcomes = [];
  try {
    await transaction(async (client) => {
      await client.query("SET LOCAL synchronous_commit = off");
      await query(
        // A delivery its hook's deletion ended while the attempt was in flight stays ended
        // ("Hook was deleted"), unless this attempt succeeded.
        sql`UPDATE hook_deliveries d SET state = CASE WHEN d.state = 'queued' OR o.state = 'success' THEN o.state ELSE d.state END,
              next_attempt_at = now() + make_interval(secs => o.delay), lease_until = NULL,
              request = o.request, response = o.response, error = CASE WHEN d.state = 'queued' OR o.state = 'success' THEN o.error ELSE d.error END
            FROM unnest(${batch.map((b) => b.seq)}::bigint[], ${batch.map((b) => b.state)}::text[], ${batch.map((b) => b.delay)}::float8[],
                        ${batch.map((b) => JSON.stringify(b.outcome.request))}::jsonb[], ${batch.map((b) => (b.outcome.response ? JSON.stringify(b.outcome.response) : null))}::jsonb[],
                        ${batch.map((b) => b.outcome.error)}::text[]) AS o(seq, state, delay, request, response, error)
            WHERE d.seq = o.seq`,
        client,
        { prepared: true },
      );
    });
    for (const b of batch) b.resolve();
  } catch (error) {
    for (const b of batch) b.reject(error);
  }
}

/** The last attempt failed: `error`, and the project is told, in one transaction. */
async function recordExhausted(delivery: ClaimedDelivery, outcome: AttemptRecord): Promise<void> {
  await transaction(async (client) => {
    await query(
      sql`UPDATE hook_deliveries SET state = 'error', lease_until = NULL, request = ${JSON.stringify(outcome.request)}::jsonb,
            response = ${outcome.response ? JSON.stringify(outcome.response) : null}::jsonb, error = ${outcome.error}
          WHERE seq = ${delivery.seq}`,
      client,
    );
    await writeNotification(
      delivery.projectId,
      {
        author: "Arca",
        subject: `Hook ${delivery.hook.name || delivery.hook._id} failed`,
        message: `Delivery ${delivery.id} (${delivery.trigger}) to ${delivery.hook.url} failed after ${delivery.attempt} attempts: ${outcome.error ?? "error"}.`,
      },
      client,
    );
  });
}

/**
 * Milliseconds until the next queued delivery falls due (for the workers' timer), if one is
 * waiting for its time. Deliveries due already but not claimable (their hook inactive, an earlier
 * delivery of the document still queued, their hook at its limit) do not count: their way back is
 * an event (the hook saved, the earlier delivery done, a slot freed) that wakes the workers, and
 * counting them made the workers claim nothing in a loop for as long as they waited. Leases are
 * left out too: a crashed process's lease runs for minutes, and the workers' idle recheck claims
 * it once it ends. Measured by PostgreSQL's clock, so clock skew cannot make the timer spin.
 */
export async function msUntilNextDue(): Promise<number | undefined> {
  const row = await queryOne<{ ms: number | null }>(
    sql`SELECT ceil(extract(epoch FROM min(next_attempt_at) - now()) * 1000)::float8 AS ms FROM hook_deliveries
        WHERE state = 'queued' AND ${dueIndexed("next_attempt_at")} AND next_attempt_at > now()`,
  );
  return row?.ms ?? undefined;
}

/** `X-Action: test`: a delivery with trigger "test" and a sample document, claimed at once. */
export async function queueTestDelivery(projectId: string, hook: Hook): Promise<ClaimedDelivery> {
  const id = timeOrderedUuid();
  const document = { _id: "test", collection: hook.collection, message: "A test delivery from Arca" };
  const [row] = await query<{ seq: number }>(
    sql`INSERT INTO hook_deliveries (id, project_id, hook_id, trigger, collection_id, document_id, payload, attempt, lease_until)
        VALUES (${id}, ${projectId}, ${hook._id}, 'test', ${hook.collection}, 'test', ${JSON.stringify(document)}::jsonb, 1, now() + interval '10 minutes')
        RETURNING seq`,
  );
  return { seq: Number(row.seq), id, projectId, trigger: "test", attempt: 1, hook, document };
}

/**
 * `X-Action: retry` on a history record: the same delivery (same operation id) again, now, with
 * a fresh round of attempts. 409 while a worker holds it.
 */
export async function claimForRetry(projectId: string, id: string): Promise<ClaimedDelivery> {
  return transaction(async (client) => {
    const row = await queryOne<ClaimedRow & { lease_until: Date | null; state: string; collection_id: string }>(
      sql`SELECT d.seq, d.id, d.project_id, d.trigger, d.state, d.lease_until, d.collection_id, h.data AS hook,
            coalesce(d.payload, (SELECT coalesce(e.after, e.before) FROM document_events e WHERE e.id = d.event_id)) AS document
          FROM hook_deliveries d LEFT JOIN hooks h ON h.project_id = d.project_id AND h.id = d.hook_id
          WHERE d.project_id = ${projectId} AND d.id = ${id} FOR UPDATE OF d`,
      client,
    );
    if (!row) throw notFound("Document not found.");
    // The record is there (a GET shows it); what it would be sent with is gone.
    if (row.hook === null) throw conflict("The hook of this delivery was deleted.");
    // A hook of that id made again, or pointed elsewhere, for another collection: its writer was
    // never checked for reading this delivery's document, which must not go where it points.
    if (row.hook.collection !== row.collection_id) throw conflict("The hook of this delivery now watches another collection.");
    if (row.state === "queued" && row.lease_until && row.lease_until > new Date()) throw conflict("The delivery is in progress.");
    if (row.document === null) throw conflict("The event of this delivery has expired.");
    await query(
      sql`UPDATE hook_deliveries SET state = 'queued', attempt = 1, lease_until = now() + interval '10 minutes' WHERE seq = ${row.seq}`,
      client,
    );
    return { seq: Number(row.seq), id: row.id, projectId: row.project_id, trigger: row.trigger, attempt: 1, hook: row.hook, document: row.document };
  });
}
