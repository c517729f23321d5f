import { query, type Queryable } from "../db/query";
import { pool } from "../db/pool";
import { sql } from "../db/sql";

/**
 * Per-project, per-hour request counters (`_usage`, CONTRACT §10). Requests are counted in
 * memory and added to `usage` by one upsert per flush: one writer per process every few seconds,
 * so the request path never touches the database for them. A flush also snapshots the project's
 * `data_size` and `files_size` (the `project_totals` view) into the hour's row.
 */
export interface UsageSample {
  bytesIn: number;
  bytesOut: number;
}

interface Counter {
  projectId: string;
  hour: Date;
  requests: number;
  bytesIn: number;
  bytesOut: number;
}

// On globalThis: under `npm start` the Next bundle may hold a second copy of this module, and
// whichever copy runs the flusher must see every count.
const state = ((globalThis as { __arcaUsage?: { pending: Map<string, Counter> } }).__arcaUsage ??= { pending: new Map() });

const HOUR_MS = 3_600_000;

/** Counts one request of `projectId` in the hour of `at`. */
export function recordUsage(projectId: string, sample: UsageSample, at = new Date()): void {
  const hour = new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
  const key = `${projectId}\0${hour.getTime()}`;
  let counter = state.pending.get(key);
  if (!counter) {
    counter = { projectId, hour, requests: 0, bytesIn: 0, bytesOut: 0 };
    state.pending.set(key, counter);
  }
  counter.requests += 1;
  counter.bytesIn += sample.bytesIn;
  counter.bytesOut += sample.bytesOut;
}

/**
 * Adds the pending counts to `usage` in one statement. Counts of projects deleted meanwhile are
 * dropped (the join on `project_totals`). On failure the counts are kept for the next flush.
 */
export async function flushUsage(db: Queryable = pool()): Promise<number> {
  if (state.pending.size === 0) return 0;
  const batch = [...state.pending.values()];
  state.pending = new Map();
  try {
    await query(
      sql`INSERT INTO usage AS u (project_id, hour, requests, bytes_in, bytes_out, data_size, files_size)
          SELECT b.project_id, b.hour, b.requests, b.bytes_in, b.bytes_out, t.data_size, t.files_size
          FROM unnest(${batch.map((c) => c.projectId)}::text[], ${batch.map((c) => c.hour.toISOString())}::timestamptz[],
                      ${batch.map((c) => c.requests)}::bigint[], ${batch.map((c) => c.bytesIn)}::bigint[], ${batch.map((c) => c.bytesOut)}::bigint[])
               AS b (project_id, hour, requests, bytes_in, bytes_out)
          JOIN project_totals t ON t.project_id = b.project_id
          ON CONFLICT (project_id, hour) DO UPDATE SET
            requests = u.requests + EXCLUDED.requests,
            bytes_in = u.bytes_in + EXCLUDED.bytes_in,
            bytes_out = u.bytes_out + EXCLUDED.bytes_out,
            data_size = EXCLUDED.data_size,
            files_size = EXCLUDED.files_size`,
      db,
    );
  } catch (error) {
    for (const counter of batch) {
      const key = `${counter.projectId}\0${counter.hour.getTime()}`;
      const current = state.pending.get(key);
      if (!current) state.pending.set(key, counter);
      else {
        current.requests += counter.requests;
        current.bytesIn += counter.bytesIn;
        current.bytesOut += counter.bytesOut;
      }
    }
    throw error;
  }
  return batch.length;
}
