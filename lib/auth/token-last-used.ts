import { query } from "../db/query";
import { sql } from "../db/sql";

/**
 * Tokens' `last_used_at` (issue 14, shown on the dashboard's tokens page), kept off the request
 * path like files' `last_access`: a request by a token only notes it in memory, and at most once
 * a minute per token (per process) does that note become a queued write; the queue is flushed in
 * batches by a background job with one UPDATE that never moves a time backwards. So a token
 * doing thousands of requests a second costs one write a minute, and a crash loses at most the
 * last flush interval, which is all a "last used" date promises (to the minute).
 */
export const WRITE_EVERY_MS = 60_000;
const BATCH = 500;
/** How many tokens' last write time a process remembers; past it the oldest are forgotten. */
const REMEMBERED = 10_000;

// On globalThis: Next's bundle and the API's may be two copies of this module in one process.
const state = ((globalThis as { __arcaTokenUse?: { written: Map<string, number>; pending: Map<string, Use> } }).__arcaTokenUse ??= {
  written: new Map(),
  pending: new Map(),
});

interface Use {
  projectId: string;
  id: string;
  at: Date;
}

/** A request authenticated by this token; `now` is for tests. Never touches the database. */
export function noteTokenUse(projectId: string, tokenId: string, now = Date.now()): void {
  const key = `${projectId}\u0000${tokenId}`;
  const last = state.written.get(key);
  if (last !== undefined && now - last < WRITE_EVERY_MS) return;
  state.written.delete(key); // re-inserted last: the Map's order is the forgetting order
  state.written.set(key, now);
  if (state.written.size > REMEMBERED) state.written.delete(state.written.keys().next().value!);
  state.pending.set(key, { projectId, id: tokenId, at: new Date(now) });
  if (state.pending.size >= BATCH) void flushTokenLastUsed();
}

let flushing: Promise<void> | undefined;

/** Writes the queued uses; concurrent calls share one flush. */
export function flushTokenLastUsed(): Promise<void> {
  if (flushing) return flushing;
  if (state.pending.size === 0) return Promise.resolve();
  flushing = (async () => {
    await Promise.resolve(); // `flushing` is assigned before the finally below can clear it
    try {
      while (state.pending.size) {
        const batch = [...state.pending.entries()].slice(0, BATCH);
        for (const [key] of batch) state.pending.delete(key);
        const uses = batch.map(([, use]) => use);
        await query(
          sql`UPDATE tokens t SET last_used_at = greatest(t.last_used_at, v.at)
              FROM unnest(${uses.map((u) => u.projectId)}::text[], ${uses.map((u) => u.id)}::text[], ${uses.map((u) => u.at)}::timestamptz[]) AS v(project_id, id, at)
              WHERE t.project_id = v.project_id AND t.id = v.id`,
        ).catch((error) => console.error(`tokens: last_used_at flush: ${(error as Error).message}`));
      }
    } finally {
      flushing = undefined;
    }
  })();
  return flushing;
}

/** The flush every few seconds, for the background workers; the returned stop flushes once more. */
export function startTokenLastUsedFlush(everyMs = 5_000): () => Promise<void> {
  const timer = setInterval(() => void flushTokenLastUsed(), everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await flushTokenLastUsed();
  };
}
