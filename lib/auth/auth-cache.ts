/**
 * A short-lived, in-process cache of successful project authentications (project + principal),
 * so a request by a known token or session costs no extra database round trip. Only successes
 * are cached (random forged secrets cannot fill it). Every change that can narrow access in this
 * process (token edited or deleted, member changed or removed, project changed, logout) clears it
 * at once; other processes (a second server, the CLI) are bounded by the TTL.
 */
const TTL_MS = Number(process.env.ARCA_AUTH_CACHE_MS ?? 1000);
const MAX_ENTRIES = 10_000;

interface Entry<T> {
  value: T;
  expires: number;
}

// On globalThis: under `npm start` Next's bundle of this module and the API's are two copies, and
// a sign-out through the dashboard must clear the cache the API reads.
const state = ((globalThis as { __arcaAuthCache?: { entries: Map<string, Entry<unknown>>; generation: number } }).__arcaAuthCache ??= {
  entries: new Map(),
  generation: 0,
});
const { entries } = state;

export async function cachedAuthentication<T>(key: string, load: () => Promise<T>): Promise<T> {
  if (TTL_MS <= 0) return load();
  const now = Date.now();
  const hit = entries.get(key);
  if (hit && hit.expires > now) return hit.value as T;
  const started = state.generation;
  const value = await load();
  // A change committed while we were loading may have narrowed access: don't keep the old view.
  if (started === state.generation) {
    if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    entries.set(key, { value, expires: now + TTL_MS });
  }
  return value;
}

export function invalidateAuthCache(): void {
  state.generation++;
  entries.clear();
}
