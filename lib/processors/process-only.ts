/**
 * ProcessOnly (CONTRACT §7): `?process_only=a,b` or the header `X-Process-Only: a,b` names the
 * properties (dotted paths) whose processors a write runs; the query parameter wins. Undefined
 * when neither is given (every processor runs as usual).
 */
export function parseProcessOnly(query: string | undefined | null, header: string | undefined | null): string[] | undefined {
  const raw = query ?? header;
  if (raw === undefined || raw === null) return undefined;
  return raw
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
}
