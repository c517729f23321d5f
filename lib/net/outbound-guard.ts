import dns from "node:dns";
import net from "node:net";
import { Agent } from "undici";

/**
 * The SSRF guard for every request Arca makes on a user's behalf (hook deliveries, processor
 * vendors, `readability_com`): targets that resolve to loopback, private, link-local, unique-local
 * or metadata addresses are refused unless `ARCA_HOOKS_ALLOW_PRIVATE=true`. The check runs on the
 * address the connection actually uses (the resolved one, in the socket's own `lookup`), so a DNS
 * name that flips to 127.0.0.1 after a first check, or a redirect to an internal host, is refused too.
 */
export class PrivateAddressError extends Error {
  readonly code = "EPRIVATEADDRESS";
  constructor(readonly host: string, readonly address: string) {
    super(`${host} resolves to a private address (${address})`);
    this.name = "PrivateAddressError";
  }
}

export function allowPrivateTargets(): boolean {
  return process.env.ARCA_HOOKS_ALLOW_PRIVATE === "true";
}

const blocked = new net.BlockList();
for (const [prefix, bits] of [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const)
  blocked.addSubnet(prefix, bits, "ipv4");
for (const [prefix, bits] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7], // unique-local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["fd00:ec2::", 32], // AWS metadata over IPv6
] as const)
  blocked.addSubnet(prefix, bits, "ipv6");

/** True for addresses a public webhook or vendor can never legitimately be on. */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1], "ipv4");
    return blocked.check(address, "ipv6");
  }
  return true; // not an address at all: refuse rather than guess
}

/** Resolves `url`'s host and refuses it when any address is private (for a 422 on save). */
export async function checkPublicUrl(url: URL): Promise<void> {
  if (allowPrivateTargets()) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = net.isIP(host) ? [host] : (await dns.promises.lookup(host, { all: true })).map((a) => a.address);
  const bad = addresses.find(isPrivateAddress);
  if (bad) throw new PrivateAddressError(host, bad);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `net.connect` lookup that resolves as usual and then refuses private addresses. */
function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "");
    const list = addresses as dns.LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(new PrivateAddressError(hostname, bad.address) as unknown as NodeJS.ErrnoException, "");
    if (options.all) return callback(null, list);
    callback(null, list[0].address, list[0].family);
  });
}

const agents = new Map<string, Agent>();

/**
 * An undici dispatcher whose connections go through the guard (when private targets are not
 * allowed) with the given connect timeout. Agents are pooled per timeout: keep-alive matters at
 * a thousand deliveries a second.
 */
export function outboundDispatcher(connectTimeoutMs: number): Agent {
  const guard = !allowPrivateTargets();
  const key = `${guard}:${connectTimeoutMs}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({
      connectTimeout: connectTimeoutMs,
      connections: 128,
      keepAliveTimeout: 10_000,
      connect: guard ? { lookup: guardedLookup as never } : undefined,
    });
    agents.set(key, agent);
  }
  return agent;
}

/** A literal IP in the URL never goes through `lookup`: check it before connecting. */
export function assertHostAllowed(url: URL): void {
  if (allowPrivateTargets()) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(host) && isPrivateAddress(host)) throw new PrivateAddressError(host, host);
}

/** Closes pooled connections (server shutdown). */
export async function closeOutboundDispatchers(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.close().catch(() => {})));
}
