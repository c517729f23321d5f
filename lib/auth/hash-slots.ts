import { serviceUnavailable } from "../errors";

/**
 * scrypt runs on libuv's thread pool (4 threads), which file I/O and DNS share. At most
 * `HASH_CONCURRENCY` hashes run at once, so two threads stay free for everything else; up to
 * `HASH_QUEUE` more wait their turn, and a flood beyond that is refused at once (503 with
 * Retry-After) instead of stalling the process.
 */
export const HASH_CONCURRENCY = 2;
export const HASH_QUEUE = 32;

const state = ((globalThis as { __arcaHashSlots?: { running: number; waiting: (() => void)[] } }).__arcaHashSlots ??= {
  running: 0,
  waiting: [],
});

export async function withHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (state.running >= HASH_CONCURRENCY) {
    if (state.waiting.length >= HASH_QUEUE) throw serviceUnavailable("Too many sign-ins at once, try again shortly.", 1);
    // The slot is handed over by the finishing hash (running stays counted), so no one jumps the queue.
    await new Promise<void>((resolve) => state.waiting.push(resolve));
  } else state.running++;
  try {
    return await work();
  } finally {
    const next = state.waiting.shift();
    if (next) next();
    else state.running--;
  }
}
