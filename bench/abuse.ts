/**
 * Abuse benchmark: `npm run bench:abuse` (issue 17, the longer runs of the fault and abuse suite).
 *
 * Arca (bench/serve-arca.ts) runs as a child over a fresh database; this process sends.
 * 1. Hostile corpus: BENCH_ROUNDS (default 20) rounds of every request that once answered 500,
 *    hung or polluted a prototype (issue 17 items 1, 2, 4, 6), 8 at a time: answers by status,
 *    slowest answer, 500s (must be 0).
 * 2. The worst filter vs. an unrelated project: BENCH_SLOW (default 8) concurrent filters that
 *    PostgreSQL spends seconds on (cancelled at ARCA_STATEMENT_TIMEOUT_MS, 503) from one project
 *    while another project reads one document in a loop: its p50/p99 against the same loop alone.
 * 3. Oversized bodies: 20 concurrent 20 MiB JSON bodies and 20 multipart bodies of 14 x 15 MiB
 *    fields (the issue's 2.25 GB RSS repro): answers and the server's peak RSS.
 */
import type { ChildProcess } from "node:child_process";
import http from "node:http";
import pg from "pg";
import { benchDatabase, seedProject } from "./bench-database";
import { rssMiB, startArca, stopChildren, runBenchmark } from "./bench-processes";

const ROUNDS = Number(process.env.BENCH_ROUNDS || 20);
const SLOW = Number(process.env.BENCH_SLOW || 8);
const SLOW_REGEX = "(a?){100}".repeat(11);

runBenchmark(main);

interface Answer {
  status: number;
  ms: number;
}

function send(base: string, target: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Answer> {
  const started = performance.now();
  const url = new URL(base);
  return new Promise((resolve) => {
    const req = http.request({ host: url.hostname, port: url.port, path: target, method: options.method ?? "GET", headers: options.headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on("error", () => resolve({ status: 0, ms: performance.now() - started }));
    req.end(options.body);
  });
}

function multipart(parts: { name: string; value: string | Buffer; filename?: string }[]): { body: Buffer; type: string } {
  const boundary = "----benchAbuse";
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const file = p.filename === undefined ? "" : `; filename="${p.filename}"\r\nContent-Type: application/octet-stream`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${file}\r\n\r\n`), Buffer.from(p.value), Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? 0;

async function pool<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

async function main() {
  const { url, cleanup } = await benchDatabase("abuse");
  const children: ChildProcess[] = [];
  try {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const secret = await seedProject(client, "bench");
    const calmSecret = await seedProject(client, "calm");
    await client.end();
    const arca = await startArca(url, children);
    const pid = children[0].pid!;
    const json = { "x-project": "bench", authorization: `Token ${secret}`, "content-type": "application/json" };
    const calm = { "x-project": "calm", authorization: `Token ${calmSecret}` };
    await send(arca, "/api/collections/c/documents/", { method: "POST", headers: json, body: JSON.stringify({ _id: "d1", s: "abc" }) });
    await send(arca, "/api/collections/c/documents/", { method: "POST", headers: { ...calm, "content-type": "application/json" }, body: JSON.stringify({ _id: "x" }) });
    await send(arca, "/api/collections/redos/", { method: "POST", headers: json, body: JSON.stringify({ name: `${"a".repeat(40)}!` }) });
    console.log(`server RSS at start: ${rssMiB(pid).toFixed(0)} MiB`);

    // 1. Hostile corpus.
    const nest = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
    const corpus: [string, { method?: string; headers?: Record<string, string>; body?: string | Buffer }][] = [
      ["/api/collections/c/documents/d1/__proto__/polluted/", { method: "PUT", headers: json, body: '"yes"' }],
      ["/api/collections/c/documents/", { method: "POST", headers: json, body: '{"__proto__":{"polluted":1}}' }],
      ["/api/collections/c/documents/", { method: "POST", headers: { ...json, "x-action": "upsert" }, body: JSON.stringify({ filter: { "constructor.prototype.polluted": 1 }, operation: { $set: { b: 1 } } }) }],
      [`/api/collections/?filter=${encodeURIComponent(JSON.stringify({ name: { $regex: "^(a+)+$" } }))}`, { headers: json }],
      ["/api/collections/c/documents/", { method: "POST", headers: { ...json, "x-action": "find" }, body: JSON.stringify({ filter: { s: { $regex: "(a?){100}".repeat(30) } } }) }],
      ["/api/collections/c/documents/", { method: "POST", headers: { ...json, "x-action": "find" }, body: JSON.stringify({ filter: { s: { $in: Array.from({ length: 50_000 }, (_, i) => i) } } }) }],
      [`/api/collections/c/documents/?sort=${Array.from({ length: 2000 }, (_, i) => `k${i}`).join(",")}`, { headers: json }],
      ["/api/collections/c/documents/", { method: "POST", headers: json, body: `{"d":${nest(2000)}}` }],
      ["/api/collections/c/documents/", { method: "POST", headers: json, body: '{"s":"a\\u0000b"}' }],
      ["/api/collections/c/documents/%00/", { headers: json }],
      ["/api/collections/%E0%A4%A/", { headers: json }],
      ["/api/collections/c/documents/d1/", { headers: { ...json, cookie: "a=%%%" } }],
      ["*", { headers: json }],
      ["/api/collections/c/documents/", { method: "POST", headers: { ...json, "content-type": multipart([]).type }, body: multipart(Array.from({ length: 2000 }, (_, i) => ({ name: `f${i}`, value: "1" }))).body }],
      ["/api/collections/c/documents/", { method: "POST", headers: { ...json, "content-type": multipart([]).type }, body: multipart(Array.from({ length: 200 }, (_, i) => ({ name: `p${i}`, value: "x", filename: `${i}.txt` }))).body }],
      ["/api/collections/c/documents/", { method: "POST", headers: { ...json, "content-type": multipart([]).type }, body: multipart([{ name: "x[100000]", value: "1" }]).body }],
      ["/api/collections/c/documents/", { method: "POST", headers: { ...json, "content-type": multipart([]).type }, body: multipart([{ name: "_id", value: "x", filename: "x.txt" }]).body }],
    ];
    const statuses = new Map<number, number>();
    let slowest = 0;
    const started = performance.now();
    await pool(Array.from({ length: ROUNDS }, () => corpus).flat(), 8, async ([target, options]) => {
      const answer = await send(arca, target, options);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      slowest = Math.max(slowest, answer.ms);
    });
    const probe = await send(arca, "/api/collections/c/documents/d1/", { headers: json });
    console.log(
      `1. hostile corpus: ${ROUNDS * corpus.length} requests in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
        `${[...statuses].sort().map(([s, n]) => `${s}: ${n}`).join(", ")}; slowest ${slowest.toFixed(0)} ms; ` +
        `500s: ${statuses.get(500) ?? 0}; a normal GET afterwards: ${probe.status}; RSS ${rssMiB(pid).toFixed(0)} MiB`,
    );

    // 2. The worst filter against an unrelated project's reads.
    const calmLoop = async (ms: number) => {
      const times: number[] = [];
      const until = performance.now() + ms;
      while (performance.now() < until) times.push((await send(arca, "/api/collections/c/documents/x/", { headers: calm })).ms);
      return times;
    };
    const alone = await calmLoop(3000);
    const slowBody = JSON.stringify({ filter: { s: { $regex: SLOW_REGEX, $options: "i" } } });
    const slowStarted = performance.now();
    const slow = Promise.all(Array.from({ length: SLOW }, () => send(arca, "/api/collections/c/documents/", { method: "POST", headers: { ...json, "x-action": "find" }, body: slowBody })));
    const during = await calmLoop(3000);
    const slowAnswers = await slow;
    console.log(
      `2. ${SLOW} worst filters: answered ${slowAnswers.map((a) => a.status).join(",")} after ${((performance.now() - slowStarted) / 1000).toFixed(1)} s; ` +
        `unrelated GET alone p50 ${percentile(alone, 50).toFixed(1)} ms p99 ${percentile(alone, 99).toFixed(1)} ms (${alone.length}); ` +
        `during p50 ${percentile(during, 50).toFixed(1)} ms p99 ${percentile(during, 99).toFixed(1)} ms (${during.length})`,
    );

    // 3. Oversized bodies.
    let peak = rssMiB(pid);
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 50);
    const big = Buffer.alloc(20 * 1024 * 1024, "a");
    const bigJson = await Promise.all(Array.from({ length: 20 }, () => send(arca, "/api/collections/c/documents/", { method: "POST", headers: json, body: Buffer.concat([Buffer.from('{"s":"'), big, Buffer.from('"}')]) })));
    const field = JSON.stringify("b".repeat(15 * 1024 * 1024));
    const fields = multipart(Array.from({ length: 14 }, (_, i) => ({ name: `f${i}`, value: field })));
    const bigMultipart = await Promise.all(Array.from({ length: 20 }, () => send(arca, "/api/collections/c/documents/", { method: "POST", headers: { ...json, "content-type": fields.type }, body: fields.body })));
    clearInterval(sampler);
    console.log(
      `3. oversized: 20 x 20 MiB JSON -> ${[...new Set(bigJson.map((a) => a.status))].join(",")}; ` +
        `20 x 14 x 15 MiB multipart fields -> ${[...new Set(bigMultipart.map((a) => a.status))].join(",")}; peak server RSS ${peak.toFixed(0)} MiB`,
    );
  } finally {
    await stopChildren(children);
    await cleanup();
  }
}
