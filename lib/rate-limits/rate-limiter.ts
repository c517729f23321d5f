import { query } from "../db/query";
import { sql } from "../db/sql";
import { tooManyRequests } from "../errors";

/**
 * Counters of attempts in PostgreSQL, so a limit holds across processes: one row per key, one
 * atomic upsert per count. A window opens with its first point and lasts `windowMs`; a point
 * after it opens a new one. Expired rows are pruned now and then by whichever process counts.
 */
export interface Limit {
  /** e.g. `login:address:a@b.c`, `failures:ip:203.0.113.9`. */
  key: string;
  /** Points allowed per window; 0: no limit (nothing is counted). */
  max: number;
  windowMs: number;
}

interface CounterRow {
  key: string;
  points: number;
  seconds_left: number;
}

/** 429 (with the seconds until the window ends) when any of `limits` is used up already. */
export async function assertUnderLimits(limits: Limit[]): Promise<void> {
  const active = limits.filter((limit) => limit.max > 0);
  if (!active.length) return;
  const rows = await query<CounterRow>(
    sql`SELECT key, points, extract(epoch FROM expires_at - now())::float8 AS seconds_left
        FROM rate_limits WHERE key = ANY(${active.map((l) => l.key)}::text[]) AND expires_at > now()`,
  );
  throwIfOver(active, rows, (points, max) => points >= max);
}

/** Counts one attempt against each limit; 429 when this one went past any of them. */
export async function countAttempt(limits: Limit[]): Promise<void> {
  const active = limits.filter((limit) => limit.max > 0);
  if (!active.length) return;
  pruneNowAndThen();
  const rows = await query<CounterRow>(
    sql`INSERT INTO rate_limits AS r (key, points, expires_at)
        SELECT k, 1, now() + w * interval '1 millisecond'
        FROM unnest(${active.map((l) => l.key)}::text[], ${active.map((l) => l.windowMs)}::float8[]) AS a (k, w)
        ON CONFLICT (key) DO UPDATE SET
          points = CASE WHEN r.expires_at <= now() THEN 1 ELSE r.points + 1 END,
          expires_at = CASE WHEN r.expires_at <= now() THEN excluded.expires_at ELSE r.expires_at END
        RETURNING key, points, extract(epoch FROM expires_at - now())::float8 AS seconds_left`,
  );
  throwIfOver(active, rows, (points, max) => points > max);
}

/** Forgets a key's count (a successful login clears its address's wrong passwords). */
export async function clearLimit(key: string): Promise<void> {
  await query(sql`DELETE FROM rate_limits WHERE key = ${key}`);
}

function throwIfOver(limits: Limit[], rows: CounterRow[], over: (points: number, max: number) => boolean): void {
  let wait = 0;
  for (const row of rows) {
    const limit = limits.find((l) => l.key === row.key);
    if (limit && over(row.points, limit.max)) wait = Math.max(wait, row.seconds_left);
  }
  if (wait > 0) throw tooManyRequests(wait);
}

const PRUNE_EVERY_MS = 60_000;
let lastPrune = 0;

function pruneNowAndThen(): void {
  const now = Date.now();
  if (now - lastPrune < PRUNE_EVERY_MS) return;
  lastPrune = now;
  query(sql`DELETE FROM rate_limits WHERE expires_at < now() - interval '1 minute'`).catch((error) =>
    console.error("rate-limits: pruning failed:", error instanceof Error ? error.message : error),
  );
}
