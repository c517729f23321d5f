import { isIP } from "node:net";

/**
 * The address per-IP limits count: the socket's peer, or, with `ARCA_TRUST_PROXY=true`, the last
 * address of X-Forwarded-For: the one the proxy in front appended from its own socket. Earlier
 * entries come from the client (a proxy appends to what it received), so a client could pick
 * them to dodge its limits. Without a socket (the Next door) and without a trusted proxy there is
 * no address to trust, and per-IP limits are skipped there (per-address limits still hold).
 */
export function clientAddress(input: { socketAddress: string | undefined; forwardedFor: string | undefined; trustProxy: boolean }): string | undefined {
  if (input.trustProxy && input.forwardedFor) {
    const last = input.forwardedFor.split(",").at(-1)?.trim();
    if (last && isIP(last)) return normalize(last);
  }
  return input.socketAddress ? normalize(input.socketAddress) : undefined;
}

/** `::ffff:127.0.0.1` (IPv4 on a dual-stack socket) counts as `127.0.0.1`. */
function normalize(address: string): string {
  return address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address.toLowerCase();
}
