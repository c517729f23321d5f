import dns from "node:dns";
import net from "node:net";
import os from "node:os";
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

/**
 * True for addresses a public webhook or vendor can never legitimately be on: the ranges above,
 * IPv6 forms that carry one of those IPv4 addresses (mapped and compatible, NAT64, 6to4; Teredo
 * hides its address and is refused whole), and the addresses of this machine's own interfaces (a
 * public address of the host reaches every service listening on all interfaces).
 */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true; // not an address at all: refuse rather than guess
  if (ownAddresses().has(canonicalAddress(address, family))) return true;
  if (family === 4) return blocked.check(address, "ipv4");
  if (blocked.check(address, "ipv6")) return true;
  const embedded = embeddedIpv4(address);
  return embedded === "refuse" || (embedded !== undefined && blocked.check(embedded, "ipv4"));
}

/** The IPv4 address an IPv6 address carries, "refuse" for Teredo, undefined for none. */
function embeddedIpv4(address: string): string | undefined | "refuse" {
  const words = ipv6Words(address);
  const ipv4At = (i: number) => [words[i] >> 8, words[i] & 255, words[i + 1] >> 8, words[i + 1] & 255].join(".");
  const zeros = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  if (zeros(0, 5) && (words[5] === 0xffff || words[5] === 0)) return ipv4At(6); // ::ffff:a.b.c.d, ::a.b.c.d
  if (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)) return ipv4At(6); // NAT64 64:ff9b::/96
  if (words[0] === 0x64 && words[1] === 0xff9b && words[2] === 1) return ipv4At(6); // local-use NAT64 64:ff9b:1::/48
  if (words[0] === 0x2002) return ipv4At(1); // 6to4 2002:a.b.c.d::/48
  if (words[0] === 0x2001 && words[1] === 0) return "refuse"; // Teredo 2001::/32
  return undefined;
}

/** The eight 16-bit words of a valid IPv6 address (dotted IPv4 tail and `::` expanded). */
function ipv6Words(address: string): number[] {
  let text = address.toLowerCase().split("%")[0];
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const middle = tail === undefined ? [] : Array(8 - left.length - right.length).fill("0");
  return [...left, ...middle, ...right].map((word) => parseInt(word, 16));
}

function canonicalAddress(address: string, family: number): string {
  return family === 4 ? address : ipv6Words(address).join(":");
}

let own: { addresses: Set<string>; at: number } | undefined;

/** This machine's interface addresses, looked up at most every 10 s (interfaces rarely change). */
function ownAddresses(): Set<string> {
  if (!own || Date.now() - own.at > 10_000) {
    const addresses = new Set<string>();
    for (const list of Object.values(os.networkInterfaces()))
      for (const entry of list ?? []) addresses.add(canonicalAddress(entry.address, net.isIP(entry.address)));
    own = { addresses, at: Date.now() };
  }
  return own.addresses;
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
