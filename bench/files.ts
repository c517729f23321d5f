/**
 * Files benchmark: `npm run bench:files` (not a timed test).
 *
 * Starts its own PostgreSQL (embedded, `./.bench-data`, port 54349; or `DATABASE_URL`'s server)
 * with a fresh database, and the real Arca server (`startServer`, no dashboard) as a CHILD
 * process so its memory can be read cleanly from /proc/<pid>/status. Then:
 *   1. writes a BENCH_FILE_MB (default 1024) MiB random file to a temp dir (streamed);
 *   2. uploads it to `_files` as one streamed multipart request (MB/s, peak RSS growth);
 *   3. downloads it (BENCH_ROUNDS alternating rounds, default 5, medians) through Arca, from nginx (sendfile on, started here on loopback if the Debian
 *      package is installed; skipped with a message otherwise) and from a plain Node `http`
 *      server (fs.createReadStream, 1 MiB highWaterMark): MB/s, ratios, Arca's peak RSS growth;
 *   4. BENCH_RANGES (default 2000) Range reads of 1 MiB at random offsets, 8 at a time, on each.
 * Aims (issue 4): full download >= 70 % of nginx; RSS growth < 64 MB for 1 GiB each way.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { once } from "node:events";
import pg from "pg";
import { benchDatabase, seedProject } from "./bench-database";

const FILE_MB = Number(process.env.BENCH_FILE_MB || 1024);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 5);
const RANGES = Number(process.env.BENCH_RANGES || 2000);
const RANGE_CONCURRENCY = 8;
const PROJECT = "bench";
const MiB = 1 << 20;

if (process.argv.includes("--server")) void serve();
else void main();

/** The child: Arca's server over the given database. */
async function serve() {
  const { resetConfig } = await import("../lib/config");
  const { connectDatabase } = await import("../lib/db/pool");
  const { startServer } = await import("../server");
  resetConfig();
  connectDatabase(process.env.DATABASE_URL!);
  const server = await startServer({ port: 0, withDashboard: false });
  process.send!({ port: (server.address() as { port: number }).port });
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "arca-bench-files-"));
  fs.chmodSync(work, 0o755); // nginx's workers run as an unprivileged user
  const { url, cleanup } = await benchDatabase("files");
  let child: ChildProcess | undefined;
  let nginx: { port: number; stop(): void } | undefined;
  let plain: http.Server | undefined;
  try {
    const secret = await seed(url);
    const dataDir = path.join(work, "data");
    child = spawn(process.execPath, ["--import", "tsx", "bench/files.ts", "--server"], {
      env: { ...process.env, DATABASE_URL: url, ARCA_DATA_DIR: dataDir, ARCA_MAX_FILE_SIZE: String(8 * 1024 ** 3) },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const [{ port }] = (await once(child, "message")) as [{ port: number }];
    const arca = { port, headers: { "x-project": PROJECT, authorization: `Token ${secret}` } };

    const file = path.join(work, "big.bin");
    const md5 = await writeRandomFile(file, FILE_MB * MiB);
    const size = FILE_MB * MiB;
    console.log(`files benchmark: ${FILE_MB} MiB file, Node ${process.version}, ${os.cpus().length} CPUs`);

    await sleep(1000);
    const idle = rssOf(child.pid!);
    const up = await measure(child.pid!, () => uploadFile(arca.port, arca.headers, file, size));
    const record = JSON.parse(up.value);
    if (record.md5 !== md5 || record.size !== size) throw new Error(`upload mismatch: ${up.value}`);
    const content = `/api/collections/_files/documents/${record._id}/content/`;

    await sleep(500);
    const downIdle = rssOf(child.pid!);
    plain = await startPlainNode(file);
    const plainPort = (plain.address() as { port: number }).port;
    nginx = startNginx(work);
    // Alternating rounds, medians: one download of 100 MiB takes ~0.2 s, well inside this
    // shared machine's noise.
    const downs: { ms: number; peak: number }[] = [];
    const plainDowns: number[] = [];
    const nginxDowns: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      downs.push(await measure(child.pid!, () => download(arca.port, content, arca.headers, size)));
      plainDowns.push((await measure(undefined, () => download(plainPort, "/big.bin", {}, size))).ms);
      if (nginx) nginxDowns.push((await measure(undefined, () => download(nginx!.port, "/big.bin", {}, size))).ms);
    }
    const down = { ms: median(downs.map((d) => d.ms)), peak: Math.max(...downs.map((d) => d.peak)) };
    const plainDown = { ms: median(plainDowns) };
    const nginxDown = nginx ? { ms: median(nginxDowns) } : undefined;

    const arcaRanges = await rangeReads(arca.port, content, arca.headers, size);
    const plainRanges = await rangeReads(plainPort, "/big.bin", {}, size, true);
    const nginxRanges = nginx ? await rangeReads(nginx.port, "/big.bin", {}, size) : undefined;

    const mbs = (ms: number) => size / 1e6 / (ms / 1000);
    const row = (name: string, v: string, vsNginx: string, vsNode: string) => console.log(`${name.padEnd(34)}${v.padStart(14)}${vsNginx.padStart(12)}${vsNode.padStart(12)}`);
    const ratio = (a: number, b: number | undefined) => (b ? (a / b).toFixed(2) + "x" : "-");
    console.log("");
    row("", "", "vs nginx", "vs node");
    row("upload (Arca, multipart, 1 req)", `${mbs(up.ms).toFixed(0)} MB/s`, "", "");
    row(`download Arca (median of ${ROUNDS})`, `${mbs(down.ms).toFixed(0)} MB/s`, ratio(mbs(down.ms), nginxDown && mbs(nginxDown.ms)), ratio(mbs(down.ms), mbs(plainDown.ms)));
    row("download nginx (sendfile)", nginxDown ? `${mbs(nginxDown.ms).toFixed(0)} MB/s` : "not installed", "", "");
    row("download plain Node (1 MiB reads)", `${mbs(plainDown.ms).toFixed(0)} MB/s`, "", "");
    row(`range 1 MiB x${RANGES}, ${RANGE_CONCURRENCY} conc: Arca`, `${arcaRanges.toFixed(0)} req/s`, ratio(arcaRanges, nginxRanges), ratio(arcaRanges, plainRanges));
    row("range: nginx", nginxRanges ? `${nginxRanges.toFixed(0)} req/s` : "not installed", "", "");
    row("range: plain Node", `${plainRanges.toFixed(0)} req/s`, "", "");
    console.log("");
    console.log(`Arca RSS: idle ${mb(idle)} MB; upload peak ${mb(up.peak)} MB (+${mb(up.peak - idle)} MB); download peak ${mb(down.peak)} MB (+${mb(down.peak - downIdle)} MB)`);
  } finally {
    plain?.close();
    nginx?.stop();
    child?.kill("SIGTERM");
    await cleanup();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => (bytes / 1e6).toFixed(0);

function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** Runs `work`, sampling the server's RSS every 20 ms. */
async function measure<T>(pid: number | undefined, work: () => Promise<T>): Promise<{ value: T; ms: number; peak: number }> {
  let peak = pid ? rssOf(pid) : 0;
  const timer = pid ? setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20) : undefined;
  const started = performance.now();
  try {
    const value = await work();
    return { value, ms: performance.now() - started, peak };
  } finally {
    clearInterval(timer);
  }
}

async function writeRandomFile(file: string, size: number): Promise<string> {
  const out = fs.createWriteStream(file);
  const hash = createHash("md5");
  const block = randomBytes(4 * MiB);
  for (let written = 0; written < size; written += block.length) {
    // Vary each block cheaply so no two MiB are equal (compression or dedup cannot help anyone).
    block.writeUInt32LE(written / block.length, 0);
    hash.update(block);
    if (!out.write(Buffer.from(block))) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  return hash.digest("hex");
}

function uploadFile(port: number, headers: Record<string, string>, file: string, size: number): Promise<string> {
  const boundary = `----arca-bench-${randomBytes(8).toString("hex")}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/api/collections/_files/documents/",
        headers: { ...headers, "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": head.length + size + tail.length },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => (res.statusCode === 201 ? resolve(text) : reject(new Error(`upload: ${res.statusCode} ${text}`))));
      },
    );
    req.on("error", reject);
    req.write(head);
    const stream = fs.createReadStream(file, { highWaterMark: MiB });
    stream.pipe(req, { end: false });
    stream.on("end", () => req.end(tail));
  });
}

function download(port: number, pathname: string, headers: Record<string, string>, size: number): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: pathname, headers }, (res) => {
        let received = 0;
        res.on("data", (chunk: Buffer) => (received += chunk.length));
        res.on("end", () => (res.statusCode === 200 && received === size ? resolve() : reject(new Error(`download ${port}: ${res.statusCode}, ${received} bytes`))));
      })
      .on("error", reject);
  });
}

async function rangeReads(port: number, pathname: string, headers: Record<string, string>, size: number, _plain = false): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: RANGE_CONCURRENCY });
  let next = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const start = Math.floor(Math.random() * (size - MiB));
      http
        .get({ host: "127.0.0.1", port, path: pathname, agent, headers: { ...headers, range: `bytes=${start}-${start + MiB - 1}` } }, (res) => {
          let received = 0;
          res.on("data", (chunk: Buffer) => (received += chunk.length));
          res.on("end", () => (res.statusCode === 206 && received === MiB ? resolve() : reject(new Error(`range ${port}: ${res.statusCode}, ${received}`))));
        })
        .on("error", reject);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: RANGE_CONCURRENCY }, async () => {
      while (next++ < RANGES) await one();
    }),
  );
  agent.destroy();
  return RANGES / ((performance.now() - started) / 1000);
}

/** The baseline: Node's http + fs.createReadStream (1 MiB reads), with single ranges. */
async function startPlainNode(file: string): Promise<http.Server> {
  const size = fs.statSync(file).size;
  const server = http.createServer((req, res) => {
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
    const start = m ? Number(m[1]) : 0;
    const end = m ? Math.min(Number(m[2]), size - 1) : size - 1;
    res.writeHead(m ? 206 : 200, { "content-length": end - start + 1, "content-type": "application/octet-stream", ...(m ? { "content-range": `bytes ${start}-${end}/${size}` } : {}) });
    fs.createReadStream(file, { start, end, highWaterMark: MiB }).pipe(res);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return server;
}

function startNginx(work: string): { port: number; stop(): void } | undefined {
  const binary = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((p) => fs.existsSync(p));
  if (!binary) {
    console.log("nginx is not installed (apt-get install -y nginx): skipping the nginx rows");
    return undefined;
  }
  const port = 20000 + Math.floor(Math.random() * 20000);
  const dir = path.join(work, "nginx");
  fs.mkdirSync(dir, { recursive: true });
  const conf = path.join(dir, "nginx.conf");
  fs.writeFileSync(
    conf,
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 256; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  default_type application/octet-stream;
  server { listen 127.0.0.1:${port}; root ${work}; }
}
`,
  );
  const check = spawnSync(binary, ["-t", "-c", conf, "-p", dir], { encoding: "utf8" });
  if (check.status !== 0) {
    console.log(`nginx config test failed, skipping nginx: ${check.stderr}`);
    return undefined;
  }
  const proc = spawn(binary, ["-c", conf, "-p", dir], { stdio: "ignore" });
  spawnSync("sleep", ["0.5"]);
  return { port, stop: () => proc.kill("SIGQUIT") };
}

async function seed(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const secret = await seedProject(client, PROJECT);
  await client.end();
  return secret;
}
