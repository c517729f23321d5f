/**
 * Soak benchmark: `npm run bench:soak` (server memory under a long mixed load; not a timed test).
 *
 * A fresh database (bench/bench-database.ts) and the real Arca server as a child process; this
 * process holds the load, all of it at once for BENCH_MINUTES (default 10) at a moderate, steady
 * rate (loops with pauses, not saturating):
 *   - writes: 4 loops creating, updating (PATCH and PUT, alternately) and deleting ~1 KB JSON
 *     documents in two collections, each loop on its own documents;
 *   - uploads: 1 loop of 1 MiB multipart uploads into `_files`, deleting the oldest so that at
 *     most 20 files are kept;
 *   - downloads: 2 loops reading whole files back (`.../_files/documents/<id>/content/`);
 *   - feed subscribers: BENCH_SUBSCRIBERS (default 200) SSE subscribers (plain node:http) spread
 *     over the two collections and `_files`; every sample period ~10 % of them are closed and as
 *     many opened, half of those resuming with `Last-Event-ID` where a closed one stopped.
 * Every BENCH_SAMPLE_SECONDS (default 10) it prints the Arca child's RSS and the operations so far.
 * At the end: the warm-up (the first minute, or the first 20 % of a shorter run) left out, the
 * median RSS of the first minute after it vs. that of the last minute (windows shrink to a third
 * of what is left for short runs), their ratio, the min / max after the warm-up, the counts of
 * each operation and every non-2xx answer or failed request (each one is also printed as it comes).
 * Aim: server RSS flat (+/- 10 %) over a 10-minute mixed run of writes, uploads, downloads and
 * feed subscribers.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import http from "node:http";
import { benchProject } from "./bench-database";
import { rssMiB, runBenchmark, startArca, stopChildren } from "./bench-processes";

const MINUTES = Number(process.env.BENCH_MINUTES || 10);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 200);
const SAMPLE_SECONDS = Number(process.env.BENCH_SAMPLE_SECONDS || 10);
const PROJECT = "bench";
const COLLECTIONS = ["notes", "orders"];
const FEED_COLLECTIONS = [...COLLECTIONS, "_files"];
const BOUNDARY = "----arca-bench-boundary";
const FILE_SIZE = 1 << 20;

// The load's shape: a few loops, each pausing between its requests.
const WRITERS = 4; // each on COLLECTIONS[i % 2], on its own documents
const WRITE_PAUSE_MS = 100;
const LIVE_MIN = 20; // per writer: below, it only creates; above LIVE_MAX, it only deletes
const LIVE_MAX = 200;
const UPLOAD_PAUSE_MS = 500;
const FILES_KEPT = 20;
const DOWNLOADERS = 2;
const DOWNLOAD_PAUSE_MS = 200;
const CHURN = 0.1;

type Kind = "create" | "update" | "delete" | "upload" | "file delete" | "download" | "feed open" | "feed resume";
const KINDS: Kind[] = ["create", "update", "delete", "upload", "file delete", "download", "feed open", "feed resume"];
const done = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
/** Failures by `kind status` (status 0: the request itself failed). */
const failures = new Map<string, number>();
let failureCount = 0;
let feedEvents = 0;
let feedCloses = 0;
let feedDropped = 0; // closed by the server, not by us (reopened with Last-Event-ID)

runBenchmark(main);

async function main() {
  const { url, client, secret, cleanup } = await benchProject("soak", PROJECT);
  const children: ChildProcess[] = [];
  const subscribers = new Set<Subscriber>();
  let stopping = false;
  try {
    await client.end();
    const arca = await startArca(url, children);
    const pid = children[0].pid!;
    const auth = { "x-project": PROJECT, authorization: `Token ${secret}` };
    const agent = new http.Agent({ keepAlive: true });
    const feedAgent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const api = (method: string, path: string, body?: Buffer | string, headers: Record<string, string> = {}, keepBody = true) =>
      request(agent, `${arca}${path}`, method, { ...auth, ...headers }, body, keepBody);

    // Subscribers: what EventSource does, keeping only the last id and a count of events.
    const subscribe = (collection: string, lastEventId?: string): Promise<Subscriber | undefined> =>
      new Promise((resolve) => {
        const kind: Kind = lastEventId === undefined ? "feed open" : "feed resume";
        const headers: Record<string, string> = { ...auth, accept: "text/event-stream" };
        if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
        let answered = false;
        const req = http.get(`${arca}/api/collections/${collection}/events/`, { agent: feedAgent, headers }, (res) => {
          answered = true;
          res.on("error", () => {}); // a reset: "close" follows
          if (res.statusCode !== 200) {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => (text += chunk));
            res.on("end", () => {
              fail(kind, "GET", `/api/collections/${collection}/events/`, res.statusCode ?? 0, text);
              resolve(undefined);
            });
            return;
          }
          done[kind]++;
          const subscriber: Subscriber = { collection, lastEventId, closing: false, close: () => ((subscriber.closing = true), req.destroy()) };
          subscribers.add(subscriber);
          res.setEncoding("utf8");
          let buffer = "";
          res.on("data", (chunk: string) => {
            buffer += chunk;
            let end: number;
            while ((end = buffer.indexOf("\n\n")) >= 0) {
              const frame = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              const id = /^id: (.*)$/m.exec(frame)?.[1];
              if (id !== undefined) subscriber.lastEventId = id;
              if (/^data: /m.test(frame)) feedEvents++;
            }
          });
          res.on("close", () => {
            subscribers.delete(subscriber);
            if (subscriber.closing || stopping) return;
            // Dropped by the server (e.g. too slow a reader): resume, as EventSource would.
            feedDropped++;
            console.log(`feed: the server closed a subscriber of ${collection} (last id ${subscriber.lastEventId}); resuming`);
            void subscribe(collection, subscriber.lastEventId);
          });
          resolve(subscriber);
        });
        req.on("error", (error) => {
          if (answered) return; // after the answer: its close is what counts
          fail(kind, "GET", `/api/collections/${collection}/events/`, 0, error.message);
          resolve(undefined);
        });
      });

    for (let i = 0; i < SUBSCRIBERS; i += 50)
      await Promise.all(Array.from({ length: Math.min(50, SUBSCRIBERS - i) }, (_, j) => subscribe(FEED_COLLECTIONS[(i + j) % FEED_COLLECTIONS.length])));

    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

    // Writes: each loop creates, updates and deletes its own documents.
    const writer = async (n: number) => {
      const collection = COLLECTIONS[n % COLLECTIONS.length];
      const base = `/api/collections/${collection}/documents/`;
      const live: string[] = [];
      let updates = 0;
      while (!stopping) {
        const r = Math.random();
        if (live.length < LIVE_MIN || (live.length <= LIVE_MAX && r < 0.35)) {
          const answer = await api("POST", base, JSON.stringify(documentBody(n)), { "content-type": "application/json" });
          if (answer.status === 201) {
            done.create++;
            live.push(JSON.parse(answer.body)._id);
          } else fail("create", "POST", base, answer.status, answer.body);
        } else if (live.length <= LIVE_MAX && r < 0.7) {
          const id = live[randomInt(live.length)];
          const put = updates++ % 2 === 1;
          const body = put ? documentBody(n) : { status: ["open", "paid", "shipped"][randomInt(3)], n: randomInt(1e6), touched: new Date().toISOString() };
          const answer = await api(put ? "PUT" : "PATCH", `${base}${id}/`, JSON.stringify(body), { "content-type": "application/json" });
          if (answer.status === 200) done.update++;
          else fail("update", put ? "PUT" : "PATCH", `${base}${id}/`, answer.status, answer.body);
        } else {
          const id = live.splice(randomInt(live.length), 1)[0];
          const answer = await api("DELETE", `${base}${id}/`);
          if (answer.status === 204) done.delete++;
          else fail("delete", "DELETE", `${base}${id}/`, answer.status, answer.body);
        }
        await sleep(WRITE_PAUSE_MS);
      }
    };

    // Uploads and downloads share the kept files; a file is deleted only when nobody reads it.
    const files: { id: string; reading: number }[] = [];
    const filesBase = "/api/collections/_files/documents/";
    const uploader = async () => {
      const bytes = randomBytes(FILE_SIZE);
      const body = multipartBody(bytes, "soak.bin");
      const offset = body.indexOf(bytes.subarray(0, 64));
      while (!stopping) {
        randomBytes(16).copy(body, offset); // every file different
        const answer = await api("POST", filesBase, body, { "content-type": `multipart/form-data; boundary=${BOUNDARY}` });
        if (answer.status === 201) {
          done.upload++;
          files.push({ id: JSON.parse(answer.body)._id, reading: 0 });
        } else fail("upload", "POST", filesBase, answer.status, answer.body);
        const idle = files.findIndex((f) => f.reading === 0);
        if (files.length > FILES_KEPT && idle >= 0) {
          const { id } = files.splice(idle, 1)[0];
          const deleted = await api("DELETE", `${filesBase}${id}/`);
          if (deleted.status === 204) done["file delete"]++;
          else fail("file delete", "DELETE", `${filesBase}${id}/`, deleted.status, deleted.body);
        }
        await sleep(UPLOAD_PAUSE_MS);
      }
    };
    const downloader = async () => {
      while (!stopping) {
        if (files.length === 0) {
          await sleep(100);
          continue;
        }
        const file = files[randomInt(files.length)];
        file.reading++;
        const path = `${filesBase}${file.id}/content/`;
        const answer = await api("GET", path, undefined, {}, false);
        file.reading--;
        if (answer.status === 200 && answer.bytes === FILE_SIZE) done.download++;
        else fail("download", "GET", path, answer.status, answer.status === 200 ? `${answer.bytes} bytes, not ${FILE_SIZE}` : answer.body);
        await sleep(DOWNLOAD_PAUSE_MS);
      }
    };

    // Churn: close ~10 % of the subscribers, open as many; half of them resume where one stopped.
    const churn = async () => {
      const open = [...subscribers].filter((s) => !s.closing);
      const count = Math.round(open.length * CHURN);
      const closed: Subscriber[] = [];
      for (let i = 0; i < count; i++) {
        const [subscriber] = open.splice(randomInt(open.length), 1);
        subscriber.close();
        feedCloses++;
        closed.push(subscriber);
      }
      await Promise.all(
        closed.map((s, i) =>
          i % 2 === 0 && s.lastEventId !== undefined ? subscribe(s.collection, s.lastEventId) : subscribe(FEED_COLLECTIONS[randomInt(FEED_COLLECTIONS.length)]),
        ),
      );
    };

    const durationS = MINUTES * 60;
    const times: number[] = [];
    for (let t = SAMPLE_SECONDS; t < durationS - 1e-9; t += SAMPLE_SECONDS) times.push(t);
    times.push(durationS);
    const samples: { t: number; rss: number }[] = [];
    const sample = (t: number) => {
      const rss = rssMiB(pid);
      samples.push({ t, rss });
      const counts = KINDS.map((k) => `${k} ${done[k]}`).join(", ");
      console.log(
        `${t.toFixed(0).padStart(5)} s  RSS ${rss.toFixed(1).padStart(6)} MiB  subscribers ${String(subscribers.size).padStart(4)}  ${counts}, feed events ${feedEvents}, errors ${failureCount}`,
      );
    };

    console.log(
      `\nsoak: ${MINUTES} min, ${SUBSCRIBERS} feed subscribers, ${WRITERS} writers, 1 uploader (1 MiB), ${DOWNLOADERS} downloaders, ` +
        `RSS every ${SAMPLE_SECONDS} s\n`,
    );
    const started = performance.now();
    sample(0);
    const loops = [...Array.from({ length: WRITERS }, (_, n) => writer(n)), uploader(), ...Array.from({ length: DOWNLOADERS }, () => downloader())];
    for (const [i, t] of times.entries()) {
      await sleep(Math.max(0, started + t * 1000 - performance.now()));
      sample(t);
      if (i < times.length - 1) await churn();
    }
    stopping = true;
    await Promise.all(loops);
    const elapsed = (performance.now() - started) / 1000;
    for (const subscriber of subscribers) subscriber.close();
    agent.destroy();

    // Figures: the warm-up left out, the first window after it vs. the last one.
    const warmUp = Math.min(60, durationS * 0.2);
    const window = Math.min(60, (durationS - warmUp) / 3);
    const after = samples.filter((s) => s.t > warmUp + 1e-9);
    const first = after.filter((s) => s.t <= warmUp + window + 1e-9).map((s) => s.rss);
    const last = after.filter((s) => s.t >= durationS - window - 1e-9).map((s) => s.rss);
    const rss = after.map((s) => s.rss);
    const median = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      const mid = Math.floor(sorted.length / 2);
      return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    };
    console.log(`\nsoak benchmark: ${MINUTES} min mixed load, ${SUBSCRIBERS} feed subscribers, ${samples.length} RSS samples\n`);
    if (first.length === 0 || last.length === 0) console.log(`too few samples after the ${warmUp.toFixed(0)} s warm-up for the figures (BENCH_SAMPLE_SECONDS ${SAMPLE_SECONDS})`);
    else {
      const a = median(first);
      const b = median(last);
      const change = (b / a - 1) * 100;
      console.log(`warm-up left out             first ${warmUp.toFixed(0)} s (RSS ${samples[0].rss.toFixed(1)} MiB at the start)`);
      console.log(`median RSS, first ${window.toFixed(0)} s after  ${a.toFixed(1)} MiB (${first.length} samples, ${warmUp.toFixed(0)}-${(warmUp + window).toFixed(0)} s)`);
      console.log(`median RSS, last ${window.toFixed(0)} s         ${b.toFixed(1)} MiB (${last.length} samples, ${(durationS - window).toFixed(0)}-${durationS.toFixed(0)} s)`);
      console.log(
        `  last / first                ${(b / a).toFixed(3)} (${change >= 0 ? "+" : ""}${change.toFixed(1)} %) (aim: within +/- 10 %): ${Math.abs(change) <= 10 ? "within" : "NOT within"}`,
      );
      console.log(`RSS min / max after warm-up  ${Math.min(...rss).toFixed(1)} / ${Math.max(...rss).toFixed(1)} MiB`);
    }
    console.log(`\noperations in ${elapsed.toFixed(0)} s:`);
    for (const k of KINDS) console.log(`  ${k.padEnd(12)} ${String(done[k]).padStart(7)}   ${(done[k] / elapsed).toFixed(1).padStart(6)}/s`);
    console.log(`  feed closes  ${String(feedCloses).padStart(7)}   (by the bench's churn)`);
    console.log(`  feed drops   ${String(feedDropped).padStart(7)}   (closed by the server; resumed)`);
    console.log(`  feed events  ${String(feedEvents).padStart(7)}   received by the subscribers`);
    console.log(`non-2xx answers and failed requests: ${failureCount}${failureCount ? "" : " (none expected)"}`);
    for (const [key, count] of failures) console.log(`  ${key}: ${count}`);
  } finally {
    stopping = true;
    for (const subscriber of subscribers) subscriber.close();
    await stopChildren(children);
    await cleanup();
  }
}

interface Subscriber {
  collection: string;
  lastEventId: string | undefined;
  closing: boolean;
  close(): void;
}

/** Counts and prints one unexpected answer (status 0: the request failed). */
function fail(kind: Kind, method: string, path: string, status: number, body: string) {
  failureCount++;
  const key = `${kind} ${status}`;
  failures.set(key, (failures.get(key) ?? 0) + 1);
  console.log(`error: ${kind}: ${method} ${path} -> ${status || "failed"} ${body.replace(/\s+/g, " ").slice(0, 200)}`);
}

/** One request; the whole answer is read (its text kept only when `keepBody`, or when not 2xx). */
function request(agent: http.Agent, url: string, method: string, headers: Record<string, string>, body: Buffer | string | undefined, keepBody: boolean) {
  return new Promise<{ status: number; body: string; bytes: number }>((resolve) => {
    const length = body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) };
    const req = http.request(url, { method, agent, headers: { ...headers, ...length } }, (res) => {
      const status = res.statusCode ?? 0;
      const keep = keepBody || status < 200 || status >= 300;
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        if (keep) chunks.push(chunk);
      });
      res.on("end", () => resolve({ status, body: Buffer.concat(chunks).toString("utf8"), bytes }));
      res.on("error", (error) => resolve({ status: 0, body: error.message, bytes }));
    });
    req.on("error", (error) => resolve({ status: 0, body: error.message, bytes: 0 }));
    req.end(body);
  });
}

/** A ~1 KB document. */
function documentBody(writer: number) {
  return {
    title: `soak ${writer} ${randomBytes(6).toString("hex")}`,
    n: randomInt(1e6),
    tags: Array.from({ length: 5 }, () => randomBytes(3).toString("hex")),
    text: randomBytes(384).toString("base64"),
    nested: { writer, at: new Date().toISOString(), ok: Math.random() < 0.5 },
  };
}

function multipartBody(bytes: Buffer, name: string): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}
