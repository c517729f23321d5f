/**
 * Scale-out benchmark: `npm run bench:scale-out` (issue 16's aims; figures and ratios).
 *
 * Needs an S3 endpoint: BENCH_S3_ENDPOINT (keys of scripts/s3/start-s3.sh), else it starts the
 * single-node Ceph RGW of scripts/s3 under .bench-data/ceph-s3 (Debian's radosgw, ceph-mon, ceph-osd).
 * 1. Upload and download of a BENCH_FILE_MB (default 200) MiB file through Arca with
 *    ARCA_BLOB_STORE=s3 vs. the raw SDK (lib-storage Upload, GetObject) against the same endpoint,
 *    with Arca's RSS growth (from /proc) during each.
 * 2. Creates/s (autocannon, 10 connections in all, BENCH_SECONDS) against one Arca process vs.
 *    two processes on the same database (5 connections each, at the same time).
 */
import type { ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { CreateBucketCommand, GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import autocannon from "autocannon";
import { benchProject } from "./bench-database";
import { rssMiB, startArca, stopChildren, runBenchmark } from "./bench-processes";

const FILE_MB = Number(process.env.BENCH_FILE_MB || 200);
const SECONDS = Number(process.env.BENCH_SECONDS || 10);
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

    // A random file on disk, streamed from there by both sides.
    const file = path.join(work, "blob.bin");
    const seed = randomBytes(1 << 20);
    const out = fs.createWriteStream(file);
    for (let i = 0; i < FILE_MB; i++) if (!out.write(seed)) await new Promise<void>((r) => out.once("drain", () => r()));
    await new Promise<void>((r) => out.end(() => r()));
    const size = FILE_MB << 20;

    // 1a. upload through Arca: one streamed multipart request.
    const boundary = `----bench${randomBytes(6).toString("hex")}`;
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="blob.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const rss0 = rssMiB(pid);
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 50);
    let t = performance.now();
    const uploaded = await fetch(`${arca}/api/collections/_files/documents/`, {
      method: "POST",
      headers: { ...headers, "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": String(head.length + size + tail.length) },
      body: Readable.toWeb(Readable.from((async function* () { yield head; yield* fs.createReadStream(file, { highWaterMark: 1 << 20 }); yield tail; })())) as never,
      duplex: "half",
    } as RequestInit);
    const arcaUp = performance.now() - t;
    if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
    const record = await uploaded.json();
    const upPeak = peak - rss0;

    // 1b. download through Arca.
    peak = rssMiB(pid);
    const rss1 = peak;
    t = performance.now();
    const download = await fetch(`${arca}/api/collections/_files/documents/${record._id}/content/`, { headers });
    const md5 = createHash("md5");
    for await (const chunk of download.body as unknown as AsyncIterable<Uint8Array>) md5.update(chunk);
    const arcaDown = performance.now() - t;
    clearInterval(sampler);
    const downPeak = peak - rss1;
    if (md5.digest("hex") !== record.md5) throw new Error("download differs from the upload");

    // 1c. the raw SDK against the same endpoint.
    t = performance.now();
    await new Upload({ client: raw, params: { Bucket: bucket, Key: "raw/blob.bin", Body: fs.createReadStream(file, { highWaterMark: 1 << 20 }) }, partSize: 8 << 20, queueSize: 4 }).done();
    const rawUp = performance.now() - t;
    t = performance.now();
    const object = await raw.send(new GetObjectCommand({ Bucket: bucket, Key: "raw/blob.bin" }));
    await pipeline(object.Body as Readable, async function (source) { for await (const _ of source) { /* drain */ } });
    const rawDown = performance.now() - t;

    // 2. creates: one process, then two on the same database.
    const one = await creates([arca], headers, 10);
    const second = await startArca(url, children, env);
    const two = await creates([arca, second], headers, 5);

    const mbps = (ms: number) => (FILE_MB / (ms / 1000)).toFixed(0);
    console.log(`\nscale-out benchmark (${FILE_MB} MiB file, S3 at ${endpoint}, ${SECONDS} s create runs)\n`);
    console.log(`upload    arca ${mbps(arcaUp)} MB/s   raw SDK ${mbps(rawUp)} MB/s   ratio ${(rawUp / arcaUp).toFixed(2)} (aim >= 0.8)   arca RSS +${upPeak.toFixed(0)} MiB`);
    console.log(`download  arca ${mbps(arcaDown)} MB/s   raw SDK ${mbps(rawDown)} MB/s   ratio ${(rawDown / arcaDown).toFixed(2)} (aim >= 0.8)   arca RSS +${downPeak.toFixed(0)} MiB`);
    console.log(`creates/s one process ${one.toFixed(0)}   two processes ${two.toFixed(0)}   ratio ${(two / one).toFixed(2)} (aim >= 1.0 on 2 cores)`);
  } finally {
    await stopChildren(children);
    await cleanup();
    fs.rmSync(work, { recursive: true, force: true });
    if (!process.env.BENCH_S3_ENDPOINT) stopCeph();
  }
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

const cephEnv = () => ({ ...process.env, CEPH_BASE: path.resolve(".bench-data/ceph-s3"), RGW_PORT: "7499" });
function startCeph(): string {
  execFileSync("bash", [path.resolve("scripts/s3/start-s3.sh")], { env: cephEnv(), stdio: "inherit" });
  return "http://127.0.0.1:7499";
}
function stopCeph() {
  execFileSync("bash", [path.resolve("scripts/s3/stop-s3.sh")], { env: cephEnv(), stdio: "ignore" });
}
