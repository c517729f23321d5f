/**
 * A short-lived, in-process cache of successful project authentications (project + principal),
 * so a request by a known token or session costs no extra database round trip. Only successes
 * are cached (random forged secrets cannot fill it). A change that can narrow access (token edited
 * or deleted, member changed or removed, project changed, logout) runs inside
 * `whileNarrowingAccess`: while it is in flight the cache is bypassed, so no request can see the
 * database's new state yet the cache's old one; afterwards the cache starts empty. Other processes
 * (a second server, the CLI) are bounded by the TTL.
 */
const TTL_MS = Number(process.env.ARCA_AUTH_CACHE_MS ?? 1000);
const MAX_ENTRIES = 10_000;

interface Entry<T> {
  value: T;
  expires: number;
}

// On globalThis: under `npm start` Next's bundle of this module and the API's are two copies, and
// a sign-out through the dashboard must reach the cache the API reads.
const state = ((globalThis as { __arcaAuthCache?: { entries: Map<string, Entry<unknown>>; generation: number; narrowing: number } }).__arcaAuthCache ??= {
  entries: new Map(),
  generation: 0,
  narrowing: 0,
});
const { entries } = state;

export async function cachedAuthentication<T>(key: string, load: () => Promise<T>): Promise<T> {
  if (TTL_MS <= 0 || state.narrowing > 0) return load();
  const now = Date.now();
  const hit = entries.get(key);
  if (hit && hit.expires > now) return hit.value as T;
  const started = state.generation;
  const value = await load();
  // A narrowing change that began while we were loading may have made this view stale.
  if (started === state.generation && state.narrowing === 0) {
    if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    entries.set(key, { value, expires: now + TTL_MS });
  }
  return value;
}

/** Runs a write that can narrow access with the cache out of the way, and empties it after. */
export async function whileNarrowingAccess<T>(write: () => Promise<T>): Promise<T> {
  state.narrowing++;
  clear();
  try {
    return await write();
  } finally {
    state.narrowing--;
    clear();
  }
}

function clear(): void {
  state.generation++;
  entries.clear();
}
