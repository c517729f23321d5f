/**
 * Documents benchmark: `npm run bench:documents`.
 *
 * Starts its own PostgreSQL (embedded, `./.bench-data`, port 54349; or `DATABASE_URL`'s server)
 * with a fresh database, seeds 100k documents with one INSERT ... SELECT generate_series, starts
 * the real Arca server (`startServer`, no dashboard) and a plain Node `http` + `pg` baseline, EACH
 * AS A CHILD PROCESS (the load generator must not share their event loop), creates a simple index
 * on `sku` through the API, then runs autocannon (10 connections, 2 s warm-up, BENCH_SECONDS
 * each, default 10) against:
 *   create   POST /api/collections/bench/documents/
 *   read     GET  /api/collections/bench/documents/<random id>/
 *   list     GET  /api/collections/bench/documents/?filter={"sku":"sku-<random>"}  (10 matches)
 * The baseline does what plain `pg` would: one INSERT, one SELECT by key, one indexed SELECT; no
 * auth, validation, counters or outbox. Prints req/s, p50, p99 and the ratios Arca / baseline.
 * As issue 15 asks, Arca runs with its background work switched on: one active hook on another
 * collection and BENCH_SUBSCRIBERS (default 100) idle change-feed subscribers (0 to leave out).
 */
import type { ChildProcess } from "node:child_process";
import http from "node:http";
import { openSse, type SseConnection } from "../lib/testing/sse-client";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import pg from "pg";
import { benchDatabase, seedProject } from "./bench-database";
import { cpuSeconds, postgresCpuSeconds, startArca, startChild, stopChildren, runBenchmark } from "./bench-processes";

const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const CONNECTIONS = 10;
const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS || 100_000);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 100);
const PROJECT = "bench";
const COLLECTION = "bench";

interface Result {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Cores used during the measured seconds: the server, PostgreSQL, autocannon (this process). */
  cores: { server: number; postgres: number; client: number };
}

if (process.argv[2] === "--baseline") void serveBaseline(process.argv[3]);
else
  runBenchmark(main);

async function main() {
  const { url, cleanup } = await benchDatabase("documents");
  const children: ChildProcess[] = [];
  try {
    const secret = await seed(url);
    // The hook's receiver is on loopback (it is never called: nothing is written to its collection).
    const arca = await startArca(url, children, { ARCA_HOOKS_ALLOW_PRIVATE: "true" });
    const baseline = await startChild(fileURLToPath(import.meta.url), ["--baseline", url], children);
    const headers = { "x-project": PROJECT, authorization: `Token ${secret}`, "content-type": "application/json" };

    const index = await fetch(`${arca}/api/collections/${COLLECTION}/`, {
      method: "PATCH",
      headers,
      body: JSON.stringify({ indexes: [{ type: "simple", property: "sku" }] }),
    });
    if (index.status !== 200) throw new Error(`index creation failed: ${index.status} ${await index.text()}`);
    const analyze = new pg.Client({ connectionString: url });
    await analyze.connect();
    await analyze.query("ANALYZE documents");
    await analyze.end();

    const feeds = await switchOnBackgroundWork(arca, baseline, headers);

    const results: { arca: Result; base: Result }[] = [];
    // BENCH_OPS=read,list runs a subset (e.g. to profile one path).
    const ops = (process.env.BENCH_OPS ?? "create,read,list").split(",") as Array<"create" | "read" | "list">;
    for (const kind of ops) {
      const a = await run(`arca ${kind}`, arca, children[0].pid!, kind, headers);
      const b = await run(`baseline ${kind}`, baseline, children[1].pid!, kind, { "content-type": "application/json" });
      results.push({ arca: a, base: b });
    }
    printTable(results);
    console.log(`Arca with 1 active hook on another collection and ${feeds.length} idle change-feed subscribers.`);
    for (const feed of feeds) feed.close();
  } finally {
    await stopChildren(children);
    await cleanup();
  }
}

/** One active hook on a collection the benchmark does not write, and idle feed subscribers. */
async function switchOnBackgroundWork(arca: string, receiver: string, headers: Record<string, string>): Promise<SseConnection[]> {
  const hook = await fetch(`${arca}/api/collections/_hooks/documents/`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name: "elsewhere", collection: "elsewhere", url: `${receiver}/hook`, triggers: ["created"] }),
  });
  if (hook.status !== 201) throw new Error(`hook creation failed: ${hook.status} ${await hook.text()}`);
  const feeds: SseConnection[] = [];
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const feed = await openSse(`${arca}/api/collections/elsewhere/events/`, { "x-project": headers["x-project"], authorization: headers.authorization });
    if (feed.status !== 200) throw new Error(`feed subscription failed: ${feed.status}`);
    feeds.push(feed);
  }
  return feeds;
}

/** A user, the project, an all-powerful token, and DOCUMENTS documents, straight in SQL. */
async function seed(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const secret = await seedProject(client, PROJECT);
  await client.query(`INSERT INTO collections (project_id, id) VALUES ($1, $2)`, [PROJECT, COLLECTION]);
  const started = Date.now();
  await client.query(
    `INSERT INTO documents (project_id, collection_id, id, data)
     SELECT $1, $2, 'doc' || g, jsonb_build_object('_id', 'doc' || g, 'sku', 'sku-' || (g % 10000), 'n', g, 'title', 'Document number ' || g, 'tags', jsonb_build_array('a', 'b'))
     FROM generate_series(1, $3::int) g`,
    [PROJECT, COLLECTION, DOCUMENTS],
  );
  await client.query(
    `UPDATE collections SET documents_count = (SELECT count(*) FROM documents WHERE project_id = $1 AND collection_id = $2) WHERE project_id = $1 AND id = $2`,
    [PROJECT, COLLECTION],
  );
  await client.query(`UPDATE projects SET data_size = (SELECT sum(octet_length(data::text)) FROM documents WHERE project_id = $1) WHERE id = $1`, [PROJECT]);
  console.log(`seeded ${DOCUMENTS} documents in ${Date.now() - started} ms`);
  await client.end();
  return secret;
}

const random = (n: number) => 1 + Math.floor(Math.random() * n);

function run(name: string, base: string, pid: number, kind: "create" | "read" | "list", headers: Record<string, string>): Promise<Result> {
  const docs = `/api/collections/${COLLECTION}/documents/`;
  const request =
    kind === "create"
      ? { method: "POST" as const, path: docs, setupRequest: (r: any) => ({ ...r, body: JSON.stringify({ sku: `new-${random(1000)}`, n: random(1e6), title: "Created by the benchmark" }) }) }
      : kind === "read"
        ? { method: "GET" as const, path: docs, setupRequest: (r: any) => ({ ...r, path: `${docs}doc${random(DOCUMENTS)}/` }) }
        : { method: "GET" as const, path: docs, setupRequest: (r: any) => ({ ...r, path: `${docs}?filter=${encodeURIComponent(JSON.stringify({ sku: `sku-${random(9999)}` }))}` }) };
  const measure = (duration: number) =>
    new Promise<any>((resolve, reject) =>
      autocannon({ url: base, connections: CONNECTIONS, duration, headers, requests: [request] }, (error: Error | null, result: any) =>
        error ? reject(error) : resolve(result),
      ),
    );
  // A short warm-up first: the first second of a cold server measures JIT and pool growth.
  const cpu = () => {
    const own = process.cpuUsage();
    return { server: cpuSeconds(pid), postgres: postgresCpuSeconds(), client: (own.user + own.system) / 1e6 };
  };
  return measure(2).then(async () => {
    const before = cpu();
    const started = performance.now();
    const result = await measure(SECONDS);
    const after = cpu();
    const seconds = (performance.now() - started) / 1000;
    const cores = { server: (after.server - before.server) / seconds, postgres: (after.postgres - before.postgres) / seconds, client: (after.client - before.client) / seconds };
    return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx, cores };
  });
}

/** Child: the same three operations in plain Node `http` + `pg`, as plain as they come. */
async function serveBaseline(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  let counter = 0;
  const server = http.createServer(async (req, res) => {
    try {
      const u = new URL(req.url ?? "/", "http://x");
      const parts = u.pathname.split("/").filter(Boolean); // api collections <c> documents [id]
      const collection = parts[2];
      if (req.method === "POST") {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const doc = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        doc._id = `b${process.pid.toString(16)}${(counter++).toString(16)}`;
        const { rows } = await pool.query(
          "INSERT INTO documents (project_id, collection_id, id, data) VALUES ($1, $2, $3, $4) RETURNING data",
          [PROJECT, collection, doc._id, JSON.stringify(doc)],
        );
        return send(res, 201, rows[0].data);
      }
      if (parts.length === 5) {
        const { rows } = await pool.query(`SELECT data FROM documents WHERE project_id = $1 AND collection_id = $2 AND id = $3`, [PROJECT, collection, parts[4]]);
        return rows[0] ? send(res, 200, rows[0].data) : send(res, 404, { message: "Document not found." });
      }
      const filter = JSON.parse(u.searchParams.get("filter") ?? "{}");
      const value = JSON.stringify(filter.sku);
      const { rows } = await pool.query(
        `SELECT d.data, count(*) OVER () AS total FROM documents d
         WHERE d.project_id = $1 AND d.collection_id = $2
           AND ((d.data #> '{"sku"}'::text[]) = $3::jsonb
                OR (jsonb_typeof(d.data #> '{"sku"}'::text[]) = 'array' AND (d.data #> '{"sku"}'::text[]) @> $4::jsonb))
         ORDER BY d.id LIMIT 100`,
        // Arca's equality as it compiles today (lib/query/compile-filter.ts): the array half only
        // where the value is an array, which its partial GIN index covers.
        [PROJECT, collection, value, `[${value}]`],
      );
      return send(res, 200, { items: rows.map((r) => r.data), total: Number(rows[0]?.total ?? 0) });
    } catch (error) {
      send(res, 500, { message: String(error) });
    }
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  console.log(`listening ${(server.address() as { port: number }).port}`);
  process.on("SIGTERM", () => {
    server.closeAllConnections();
    server.close(() => void pool.end().then(() => process.exit(0)));
  });
}

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
}

function printTable(rows: { arca: Result; base: Result }[]) {
  const line = (cells: (string | number)[]) => console.log(cells.map((c, i) => String(c).padEnd(i === 0 ? 10 : 14)).join(""));
  console.log(`\n${CONNECTIONS} connections, ${SECONDS} s each, ${DOCUMENTS} documents\n`);
  line(["op", "arca req/s", "base req/s", "ratio", "arca p50 ms", "base p50 ms", "arca p99 ms", "base p99 ms", "errors/non2xx"]);
  for (const { arca, base } of rows) {
    line([
      arca.name.replace("arca ", ""),
      arca.rps.toFixed(0),
      base.rps.toFixed(0),
      (arca.rps / base.rps).toFixed(2),
      arca.p50,
      base.p50,
      arca.p99,
      base.p99,
      `${arca.errors + base.errors}/${arca.non2xx + base.non2xx}`,
    ]);
  }
  // Cores during each measured run: on 2 shared cores, who spent them says what limits a ratio.
  console.log("\ncores used   server (arca / base)   postgres (arca / base)   autocannon (arca / base)");
  const c = (n: number) => n.toFixed(2);
  for (const { arca, base } of rows)
    console.log(`${arca.name.replace("arca ", "").padEnd(12)} ${c(arca.cores.server)} / ${c(base.cores.server)}            ${c(arca.cores.postgres)} / ${c(base.cores.postgres)}              ${c(arca.cores.client)} / ${c(base.cores.client)}`);
}

