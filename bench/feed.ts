/**
 * Change feed benchmark: `npm run bench:feed` (issue 12's aims; figures and ratios).
 *
 * Arca (bench/serve-arca.ts) runs as a child over a fresh database; this process holds the
 * subscribers (plain node:http, as EventSource would) and the load.
 * 1. Server RSS before and after BENCH_SUBSCRIBERS (default 1,000) idle subscribers: KB each.
 * 2. Creates/s (autocannon, 10 connections, BENCH_SECONDS) with those subscribers connected vs.
 *    with none, alternated twice.
 * 3. Fan-out: 1,000 subscribers of one collection; 20 writes 200 ms apart; for every subscriber and
 *    write, arrival minus the moment the write was sent: p50 and p99.
 */
import type { ChildProcess } from "node:child_process";
import http from "node:http";
import autocannon from "autocannon";
import { benchProject } from "./bench-database";
import { rssMiB, startArca, stopChildren, runBenchmark } from "./bench-processes";

const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS || 1000);
const PROJECT = "bench";

runBenchmark(main);

async function main() {
  const { url, client, secret, cleanup } = await benchProject("feed", PROJECT);
  const children: ChildProcess[] = [];
  try {
    await client.end();
    const arca = await startArca(url, children);
    const pid = children[0].pid!;
    const headers = { "x-project": PROJECT, authorization: `Token ${secret}`, "content-type": "application/json" };
    await fetch(`${arca}/api/collections/bench/documents/`, { method: "POST", headers, body: "{}" });
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const subscribe = (collection: string, onEvent?: (data: string, at: number) => void) =>
      new Promise<http.ClientRequest>((resolve, reject) => {
        const req = http.get(`${arca}/api/collections/${collection}/events/?token=${secret}`, { agent, headers: { "x-project": PROJECT } }, (res) => {
          if (res.statusCode !== 200) return reject(new Error(`feed: ${res.statusCode}`));
          res.setEncoding("utf8");
          let buffer = "";
          res.on("data", (chunk: string) => {
            if (!onEvent) return;
            buffer += chunk;
            let end: number;
            while ((end = buffer.indexOf("\n\n")) >= 0) {
              const frame = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              const data = /^data: (.*)$/m.exec(frame)?.[1];
              if (data) onEvent(data, performance.timeOrigin + performance.now());
            }
          });
          resolve(req);
        });
        req.on("error", reject);
      });

    // 1. memory per idle subscriber
    await creates(arca, headers, 2);
    const before = rssMiB(pid);
    const idle: http.ClientRequest[] = [];
    for (let i = 0; i < SUBSCRIBERS; i += 100) idle.push(...(await Promise.all(Array.from({ length: Math.min(100, SUBSCRIBERS - i) }, () => subscribe("idle")))));
    await new Promise((r) => setTimeout(r, 1000));
    const after = rssMiB(pid);

    // 2. creates with and without subscribers
    const withSubs1 = await creates(arca, headers, SECONDS);
    idle.forEach((r) => r.destroy());
    await new Promise((r) => setTimeout(r, 500));
    const none1 = await creates(arca, headers, SECONDS);
    const again: http.ClientRequest[] = [];
    for (let i = 0; i < SUBSCRIBERS; i += 100) again.push(...(await Promise.all(Array.from({ length: Math.min(100, SUBSCRIBERS - i) }, () => subscribe("idle")))));
    const withSubs2 = await creates(arca, headers, SECONDS);
    again.forEach((r) => r.destroy());
    await new Promise((r) => setTimeout(r, 500));
    const none2 = await creates(arca, headers, SECONDS);

    // 3. fan-out
    const sentAt = new Map<string, number>();
    const delays: number[] = [];
    const fan: http.ClientRequest[] = [];
    for (let i = 0; i < SUBSCRIBERS; i += 100)
      fan.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(100, SUBSCRIBERS - i) }, () =>
            subscribe("fan", (data, at) => {
              const id = JSON.parse(data)._id as string;
              delays.push(at - sentAt.get(id)!);
            }),
          ),
        )),
      );
    await new Promise((r) => setTimeout(r, 500));
    for (let i = 0; i < 20; i++) {
      const id = `f${i}`;
      sentAt.set(id, performance.timeOrigin + performance.now());
      await fetch(`${arca}/api/collections/fan/documents/`, { method: "POST", headers, body: JSON.stringify({ _id: id }) });
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 1000));
    fan.forEach((r) => r.destroy());
    delays.sort((a, b) => a - b);
    const pct = (p: number) => delays[Math.min(delays.length - 1, Math.floor(delays.length * p))].toFixed(1);

    const withSubs = (withSubs1 + withSubs2) / 2;
    const none = (none1 + none2) / 2;
    console.log(`\nchange feed benchmark (${SUBSCRIBERS} subscribers, ${SECONDS} s per create run)\n`);
    console.log(`server RSS before / after subscribers  ${before.toFixed(1)} / ${after.toFixed(1)} MiB   ${(((after - before) * 1024) / SUBSCRIBERS).toFixed(1)} KB per subscriber (aim <= 20)`);
    console.log(`creates/s with ${SUBSCRIBERS} idle subscribers   ${withSubs.toFixed(0)}   runs ${withSubs1.toFixed(0)}, ${withSubs2.toFixed(0)}`);
    console.log(`creates/s with none                   ${none.toFixed(0)}   runs ${none1.toFixed(0)}, ${none2.toFixed(0)}`);
    console.log(`  ratio (aim >= 0.9)                  ${(withSubs / none).toFixed(2)}`);
    console.log(`fan-out of one write to ${SUBSCRIBERS}: ${delays.length} arrivals of ${20 * SUBSCRIBERS}, p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms (aim p99 <= 100)`);
  } finally {
    await stopChildren(children);
    await cleanup();
  }
}

async function creates(base: string, headers: Record<string, string>, seconds: number): Promise<number> {
  const result = await new Promise<any>((resolve, reject) =>
    autocannon(
      { url: base, connections: 10, duration: seconds, headers, requests: [{ method: "POST", path: "/api/collections/bench/documents/", body: JSON.stringify({ title: "created by the benchmark" }) }] },
      (error: Error | null, r: any) => (error ? reject(error) : resolve(r)),
    ),
  );
  if (result.non2xx || result.errors) throw new Error(`creates: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}
