/**
 * Small uploads benchmark: `npm run bench:uploads` (issue 15; not a timed test).
 *
 * A fresh database (bench/bench-database.ts), the real Arca server as a child process
 * (BENCH_PROFILE=1 writes its CPU profile to .bench-data/profiles) and, as the baseline, a plain
 * Node `http` child that streams the same multipart body to a file and fsyncs the file and its
 * directory before answering 201: the durability Arca keeps, with none of its work. Arca runs with
 * one active hook on another collection and BENCH_SUBSCRIBERS (default 100) idle feed subscribers.
 * Each round sends BENCH_UPLOADS (default 50) sequential 1 MiB multipart uploads into `_files` to
 * each server, alternating; prints ms per upload per round, the medians and the ratio.
 * Aim (issue 15): Arca within 1.5x of the baseline.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openSse, type SseConnection } from "../lib/testing/sse-client";
import { benchProject } from "./bench-database";
import { runBenchmark, startArca, startChild, stopChildren } from "./bench-processes";

const UPLOADS = Number(process.env.BENCH_UPLOADS || 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 100);
const PROJECT = "bench";
const BOUNDARY = "----arca-bench-boundary";

if (process.argv[2] === "--baseline") void serveBaseline();
else runBenchmark(main);

async function main() {
  const { url, secret, cleanup } = await benchProject("uploads", PROJECT);
  const children: ChildProcess[] = [];
  const feeds: SseConnection[] = [];
  try {
    const arca = await startArca(url, children, { ARCA_HOOKS_ALLOW_PRIVATE: "true" });
    const baseline = await startChild(fileURLToPath(import.meta.url), ["--baseline"], children);
    const auth = { "x-project": PROJECT, authorization: `Token ${secret}` };
    const hook = await fetch(`${arca}/api/collections/_hooks/documents/`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ name: "elsewhere", collection: "elsewhere", url: `${baseline}/hook`, triggers: ["created"] }),
    });
    if (hook.status !== 201) throw new Error(`hook creation failed: ${hook.status} ${await hook.text()}`);
    for (let i = 0; i < SUBSCRIBERS; i++) feeds.push(await openSse(`${arca}/api/collections/elsewhere/events/`, auth));

    const body = multipartBody(randomBytes(1 << 20), "upload.bin");
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const target = (base: string, headers: Record<string, string>) => ({ base, headers, agent });
    const arcaTarget = target(arca, auth);
    const baseTarget = target(baseline, {});
    await uploads(arcaTarget, body, 5); // warm-up: JIT, pools, the first fsyncs
    await uploads(baseTarget, body, 5);

    const arcaMs: number[] = [];
    const baseMs: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const a = await uploads(arcaTarget, body, UPLOADS);
      const b = await uploads(baseTarget, body, UPLOADS);
      arcaMs.push(a);
      baseMs.push(b);
      console.log(`round ${round}: arca ${a.toFixed(2)} ms/upload, baseline ${b.toFixed(2)} ms/upload, ratio ${(a / b).toFixed(2)}`);
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    console.log(
      `\n${UPLOADS} sequential 1 MiB multipart uploads, median of ${ROUNDS} rounds: arca ${median(arcaMs).toFixed(2)} ms, ` +
        `baseline ${median(baseMs).toFixed(2)} ms, arca / baseline ${(median(arcaMs) / median(baseMs)).toFixed(2)}x (aim <= 1.5x)`,
    );
    console.log(`Arca with 1 active hook on another collection and ${feeds.length} idle change-feed subscribers.`);
    agent.destroy();
  } finally {
    for (const feed of feeds) feed.close();
    await stopChildren(children);
    await cleanup();
  }
}

function multipartBody(bytes: Buffer, name: string): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

/** Sends `count` uploads one after another; answers the mean milliseconds per upload. */
async function uploads(target: { base: string; headers: Record<string, string>; agent: http.Agent }, body: Buffer, count: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${target.base}/api/collections/_files/documents/`,
        {
          method: "POST",
          agent: target.agent,
          headers: { ...target.headers, "content-type": `multipart/form-data; boundary=${BOUNDARY}`, "content-length": body.length },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    if (status !== 201) throw new Error(`${target.base}: upload answered ${status}`);
  }
  return Number(process.hrtime.bigint() - started) / 1e6 / count;
}

/** Child: streams the request body to a new file, fsyncs it and its directory, answers 201. */
async function serveBaseline() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "arca-bench-uploads-"));
  let counter = 0;
  const server = http.createServer(async (req, res) => {
    if (req.method !== "POST") return void res.writeHead(204).end();
    const name = `f${counter++}`;
    const handle = await fs.promises.open(path.join(dir, name), "wx");
    for await (const chunk of req) await handle.write(chunk as Buffer);
    await handle.sync();
    await handle.close();
    const dirHandle = await fs.promises.open(dir, "r");
    await dirHandle.sync();
    await dirHandle.close();
    const text = JSON.stringify({ _id: name });
    res.writeHead(201, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  console.log(`listening ${(server.address() as { port: number }).port}`);
  process.on("SIGTERM", () => {
    server.closeAllConnections();
    server.close(() => {
      fs.rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  });
}
