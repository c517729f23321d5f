/**
 * Scale-out benchmark: `npm run bench:scale-out` (issue 16's aims; figures and ratios).
 *
 * Needs an S3 endpoint: BENCH_S3_ENDPOINT (keys of scripts/s3/start-s3.sh), else it starts the
 * single-node Ceph RGW of scripts/s3 under .bench-data/ceph-s3 (Debian's radosgw, ceph-mon, ceph-osd).
 * 1. Upload and download of a BENCH_FILE_MB (default 200) MiB file through Arca with
 *    ARCA_BLOB_STORE=s3 vs. the raw SDK (lib-storage Upload, GetObject) against the same endpoint,
 *    with Arca's RSS growth (from /proc) during each.
 * 2. Creates/s (autocannon, 10 connections in all, BENCH_SECONDS) against one Arca process vs.
 *    two processes on the same database (5 connections each, at the same time), in BENCH_ROUNDS
 *    alternating rounds. BENCH_ONLY=files or BENCH_ONLY=creates runs one part.
 */
import type { ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { CreateBucketCommand, GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import autocannon from "autocannon";
import { createS3BlobStore } from "../lib/blob/s3-blob-store";
import { benchProject } from "./bench-database";
import { cpuSeconds, rssMiB, startArca, stopChildren, runBenchmark } from "./bench-processes";

const FILE_MB = Number(process.env.BENCH_FILE_MB || 200);
const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const PROJECT = "bench";
const credentials = { accessKeyId: "TESTACCESSKEY0000001", secretAccessKey: "testsecretkey0000000000000000000000000001" };

runBenchmark(main);

async function main() {
  const endpoint = process.env.BENCH_S3_ENDPOINT ?? startCeph();
  const { url, client, secret, cleanup } = await benchProject("scaleout", PROJECT);
  const children: ChildProcess[] = [];
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "arca-bench-s3-"));
  try {
    await client.end();
    const bucket = `bench-${Date.now().toString(36)}`;
    const raw = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials, requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED" });
    await raw.send(new CreateBucketCommand({ Bucket: bucket }));
    const env = {
      ARCA_BLOB_STORE: "s3", ARCA_S3_ENDPOINT: endpoint, ARCA_S3_BUCKET: bucket, ARCA_S3_REGION: "us-east-1",
      ARCA_S3_ACCESS_KEY_ID: credentials.accessKeyId, ARCA_S3_SECRET_ACCESS_KEY: credentials.secretAccessKey, ARCA_S3_FORCE_PATH_STYLE: "true",
    };
    const arca = await startArca(url, children, env);
    const pid = children[0].pid!;
    const headers = { "x-project": PROJECT, authorization: `Token ${secret}` };

    console.log(`\nscale-out benchmark (S3 at ${endpoint}, ${SECONDS} s create runs)\n`);
    // BENCH_ONLY=files skips the creates (e.g. for a profile of the transfers), BENCH_ONLY=creates the transfers.
    if (process.env.BENCH_ONLY !== "creates") await transfers(arca, pid, headers, raw, bucket, endpoint, work);
    if (process.env.BENCH_ONLY !== "files") {
      // 2. creates: both processes run throughout; rounds alternate between one process taking all
      // 10 connections and both taking 5 each (medians: one round each was too noisy to compare).
      const second = await startArca(url, children, env);
      const one: number[] = [];
      const two: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        one.push(await creates([arca], headers, 10));
        two.push(await creates([arca, second], headers, 5));
      }
      const [a, b] = [median(one), median(two)];
      console.log(`creates/s one process ${a.toFixed(0)}   two processes ${b.toFixed(0)}   ratio ${(b / a).toFixed(2)} (aim >= 1.0 on 2 cores; medians of ${ROUNDS}: ${one.map((n) => n.toFixed(0)).join(", ")} vs ${two.map((n) => n.toFixed(0)).join(", ")})`);
    }
  } finally {
    await stopChildren(children);
    await cleanup();
    fs.rmSync(work, { recursive: true, force: true });
    if (!process.env.BENCH_S3_ENDPOINT) stopCeph();
  }
}

/** 1. A BENCH_FILE_MB file up and down through Arca's HTTP API, through its S3 store, and through the raw SDK. */
async function transfers(arca: string, pid: number, headers: Record<string, string>, raw: S3Client, bucket: string, endpoint: string, work: string) {
  // A random file on disk, streamed from there by both sides.
  const file = path.join(work, "blob.bin");
  const seed = randomBytes(1 << 20);
  const out = fs.createWriteStream(file);
  for (let i = 0; i < FILE_MB; i++) if (!out.write(seed)) await new Promise<void>((r) => out.once("drain", () => r()));
  await new Promise<void>((r) => out.end(() => r()));
  const size = FILE_MB << 20;

  // 1a-1c, BENCH_ROUNDS alternating rounds (medians; single transfers varied 0.55-0.85x between
  // runs on the shared cores): up and down through Arca's HTTP API, then the raw SDK.
  const boundary = `----bench${randomBytes(6).toString("hex")}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="blob.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 50);
  // Both sides use node:http streams (the SDK does): undici's web streams would cost the
  // client's share of the two cores and show up as Arca's slowness.
  const rgw = rgwPid();
  const cpuNow = () => [cpuSeconds(pid, "user"), cpuSeconds(pid, "system"), cpuSeconds(rgw), process.cpuUsage()] as const;
  // CPU seconds each process spent (Arca's as user+system) during one transfer.
  const cpuSince = (start: ReturnType<typeof cpuNow>) => {
    const own = process.cpuUsage(start[3]);
    const arcaUser = cpuSeconds(pid, "user") - start[0];
    const arcaSystem = cpuSeconds(pid, "system") - start[1];
    return `arca ${(arcaUser + arcaSystem).toFixed(2)} (${arcaUser.toFixed(2)}+${arcaSystem.toFixed(2)}) rgw ${(cpuSeconds(rgw) - start[2]).toFixed(2)} client ${((own.user + own.system) / 1e6).toFixed(2)}`;
  };
  /** Times `transfer`, with the CPU each process spent and Arca's RSS growth (from just before it). */
  const measure = async (transfer: () => Promise<void>) => {
    const rss0 = rssMiB(pid);
    peak = rss0;
    const cpu0 = cpuNow();
    const t0 = performance.now();
    await transfer();
    return { ms: performance.now() - t0, cpu: cpuSince(cpu0), rss: peak - rss0 };
  };
  const throughApi = { up: [] as Awaited<ReturnType<typeof measure>>[], down: [] as Awaited<ReturnType<typeof measure>>[], rawUp: [] as Awaited<ReturnType<typeof measure>>[], rawDown: [] as Awaited<ReturnType<typeof measure>>[] };
  let record: { _id: string; md5: string } | undefined;
  for (let round = 0; round < ROUNDS; round++) {
    // 1a. upload through Arca: one streamed multipart request.
    throughApi.up.push(await measure(async () => {
      const uploaded = await httpRequest(`${arca}/api/collections/_files/documents/`, {
        method: "POST",
        headers: { ...headers, "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": String(head.length + size + tail.length) },
      }, async (request) => {
        request.write(head);
        await pipeline(fs.createReadStream(file, { highWaterMark: 1 << 20 }), request, { end: false });
        request.end(tail);
      });
      if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${uploaded.body.toString()}`);
      record = JSON.parse(uploaded.body.toString());
    }));
    // 1b. download through Arca.
    throughApi.down.push(await measure(async () => {
      const downloaded = await new Promise<string>((resolve, reject) =>
        http.get(`${arca}/api/collections/_files/documents/${record!._id}/content/`, { headers }, (response) => md5Of(response).then(resolve, reject)).on("error", reject),
      );
      if (downloaded !== record!.md5) throw new Error("download differs from the upload");
    }));
    // 1c. the raw SDK against the same endpoint.
    throughApi.rawUp.push(await measure(async () => {
      await new Upload({ client: raw, params: { Bucket: bucket, Key: "raw/blob.bin", Body: fs.createReadStream(file, { highWaterMark: 1 << 20 }) }, partSize: 8 << 20, queueSize: 4 }).done();
    }));
    throughApi.rawDown.push(await measure(async () => {
      const object = await raw.send(new GetObjectCommand({ Bucket: bucket, Key: "raw/blob.bin" }));
      if ((await md5Of(object.Body as Readable)) !== record!.md5) throw new Error("raw download differs from the upload");
    }));
  }
  clearInterval(sampler);
  const expected = record!.md5;

  // 1d. Arca's S3 blob store itself (lib/blob, in this process: stage with md5 and metering,
  // commit by server-side copy; read) vs the raw SDK, alternating, medians of BENCH_ROUNDS.
  const store = createS3BlobStore({ endpoint, bucket, region: "us-east-1", accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey, forcePathStyle: true });
  const storeTimes = { up: [] as number[], down: [] as number[], rawUp: [] as number[], rawDown: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    let t = performance.now();
    const staged = await store.stage(fs.createReadStream(file, { highWaterMark: 1 << 20 }));
    await store.commit(staged, `bench-${round}`);
    storeTimes.up.push(performance.now() - t);
    t = performance.now();
    await new Upload({ client: raw, params: { Bucket: bucket, Key: `raw/${round}`, Body: fs.createReadStream(file, { highWaterMark: 1 << 20 }) }, partSize: 8 << 20, queueSize: 4 }).done();
    storeTimes.rawUp.push(performance.now() - t);
    t = performance.now();
    if ((await md5Of((await store.read(`bench-${round}`))!)) !== expected) throw new Error("store read differs from the upload");
    storeTimes.down.push(performance.now() - t);
    t = performance.now();
    if ((await md5Of((await raw.send(new GetObjectCommand({ Bucket: bucket, Key: `raw/${round}` }))).Body as Readable)) !== expected) throw new Error("raw read differs");
    storeTimes.rawDown.push(performance.now() - t);
  }

  const mbps = (ms: number) => (FILE_MB / (ms / 1000)).toFixed(0);
  const mid = (runs: { ms: number }[]) => median(runs.map((r) => r.ms));
  const maxRss = (runs: { rss: number }[]) => Math.max(...runs.map((r) => r.rss)).toFixed(0);
  const each = (runs: { ms: number }[]) => runs.map((r) => mbps(r.ms)).join(", ");
  console.log(`upload    arca ${mbps(mid(throughApi.up))} MB/s   raw SDK ${mbps(mid(throughApi.rawUp))} MB/s   ratio ${(mid(throughApi.rawUp) / mid(throughApi.up)).toFixed(2)} (aim >= 0.8; medians of ${ROUNDS}: ${each(throughApi.up)} vs ${each(throughApi.rawUp)})   arca RSS +${maxRss(throughApi.up)} MiB at most`);
  console.log(`download  arca ${mbps(mid(throughApi.down))} MB/s   raw SDK ${mbps(mid(throughApi.rawDown))} MB/s   ratio ${(mid(throughApi.rawDown) / mid(throughApi.down)).toFixed(2)} (aim >= 0.8; medians of ${ROUNDS}: ${each(throughApi.down)} vs ${each(throughApi.rawDown)})   arca RSS +${maxRss(throughApi.down)} MiB at most`);
  const [su, sd, ru, rd] = [median(storeTimes.up), median(storeTimes.down), median(storeTimes.rawUp), median(storeTimes.rawDown)];
  console.log(`store upload    arca's S3 store ${mbps(su)} MB/s   raw SDK ${mbps(ru)} MB/s   ratio ${(ru / su).toFixed(2)} (aim >= 0.8; median of ${ROUNDS})`);
  console.log(`store download  arca's S3 store ${mbps(sd)} MB/s   raw SDK ${mbps(rd)} MB/s   ratio ${(rd / sd).toFixed(2)} (aim >= 0.8; median of ${ROUNDS})`);
  for (let round = 0; round < ROUNDS; round++) {
    console.log(`  round ${round + 1} CPU s   upload through arca: ${throughApi.up[round].cpu}   raw: ${throughApi.rawUp[round].cpu}`);
    console.log(`  round ${round + 1} CPU s   download through arca: ${throughApi.down[round].cpu}   raw: ${throughApi.rawDown[round].cpu}`);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A node:http request whose body `send` writes; resolves with the status and the whole (small) answer. */
function httpRequest(url: string, options: http.RequestOptions, send: (request: http.ClientRequest) => Promise<void>): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, options, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (c: Buffer) => chunks.push(c));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
      response.on("error", reject);
    });
    request.on("error", reject);
    send(request).catch(reject);
  });
}

/** md5 of a stream, both downloads computed the same way (and checked against the upload). */
async function md5Of(stream: Readable): Promise<string> {
  const md5 = createHash("md5");
  for await (const chunk of stream) md5.update(chunk as Buffer);
  return md5.digest("hex");
}

async function creates(bases: string[], headers: Record<string, string>, connections: number): Promise<number> {
  const run = (base: string, duration: number) =>
    new Promise<any>((resolve, reject) =>
      autocannon(
        { url: base, connections, duration, headers: { ...headers, "content-type": "application/json" }, requests: [{ method: "POST", path: "/api/collections/bench/documents/", body: '{"title":"bench"}' }] },
        (e: Error | null, r: any) => (e ? reject(e) : resolve(r)),
      ),
    );
  await Promise.all(bases.map((b) => run(b, 2)));
  const results = await Promise.all(bases.map((b) => run(b, SECONDS)));
  return results.reduce((sum, r) => sum + r.requests.average, 0);
}

function cephEnv() {
  return { ...process.env, CEPH_BASE: path.resolve(".bench-data/ceph-s3"), RGW_PORT: "7499" };
}
function startCeph(): string {
  execFileSync("bash", [path.resolve("scripts/s3/start-s3.sh")], { env: cephEnv(), stdio: "inherit" });
  return "http://127.0.0.1:7499";
}
/** The radosgw serving the bench's endpoint, for its CPU figures (0 when not ours). */
function rgwPid(): number {
  try {
    return Number(fs.readFileSync(path.resolve(".bench-data/ceph-s3/run/client.rgw.gw.bgpid"), "utf8").trim()) || 0;
  } catch {
    return 0;
  }
}

function stopCeph() {
  execFileSync("bash", [path.resolve("scripts/s3/stop-s3.sh")], { env: cephEnv(), stdio: "ignore" });
}
