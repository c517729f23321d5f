/**
 * Lists benchmark: `npm run bench:lists` (issue 15's aim for lists).
 *
 * Seeds BENCH_DOCUMENTS (default 1,000,000) documents in one collection (one INSERT ... SELECT),
 * creates a simple index on `category` through the API (100 categories: 1 % selectivity), then
 * asks Arca (a child process) for filtered, sorted pages of 100 (`filter={"category":"c<k>"}`,
 * `sort=-n`, random pages of the first ten) with one client, then 10 connections, for BENCH_SECONDS each, and prints
 * p50/p99 beside plain `pg` running the equivalent SQL (same index, exact count) in this process.
 */
import type { ChildProcess } from "node:child_process";
import autocannon from "autocannon";
import pg from "pg";
import { benchProject } from "./bench-database";
import { startArca, stopChildren, runBenchmark } from "./bench-processes";

const SECONDS = Number(process.env.BENCH_SECONDS || 10);
const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS || 1_000_000);
const PROJECT = "bench";

runBenchmark(main);

async function main() {
  const { url, client, secret, cleanup } = await benchProject("lists", PROJECT);
  const children: ChildProcess[] = [];
  try {
    await client.query(`INSERT INTO collections (project_id, id) VALUES ($1, 'items')`, [PROJECT]);
    const started = Date.now();
    await client.query(
      `INSERT INTO documents (project_id, collection_id, id, data)
       SELECT $1, 'items', 'i' || g, jsonb_build_object('_id', 'i' || g, 'category', 'c' || (g % 100), 'n', (g::bigint * 7919) % 1000003, 'title', 'Item ' || g)
       FROM generate_series(1, $2::int) g`,
      [PROJECT, DOCUMENTS],
    );
    await client.query(`UPDATE collections SET documents_count = $2 WHERE project_id = $1 AND id = 'items'`, [PROJECT, DOCUMENTS]);
    console.log(`seeded ${DOCUMENTS} documents in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const arca = await startArca(url, children);
    const headers = { "x-project": PROJECT, authorization: `Token ${secret}`, "content-type": "application/json" };
    const indexed = await fetch(`${arca}/api/collections/items/`, { method: "PATCH", headers, body: JSON.stringify({ indexes: [{ type: "simple", property: "category" }] }) });
    if (indexed.status !== 200) throw new Error(`index: ${indexed.status} ${await indexed.text()}`);
    await client.query("ANALYZE documents");

    // Random pages among the first ten (fewer when a category has fewer than 1,000 documents).
    const pages = Math.max(1, Math.min(10, Math.floor(DOCUMENTS / 100 / 100)));
    const path = (page = 1 + Math.floor(Math.random() * pages)) => {
      const filter = encodeURIComponent(JSON.stringify({ category: `c${Math.floor(Math.random() * 100)}` }));
      return `/api/collections/items/documents/?filter=${filter}&sort=-n&per_page=100&page=${page}`;
    };
    const sample = await (await fetch(`${arca}${path(1)}`, { headers })).json();
    if (sample.total !== DOCUMENTS / 100 || sample.items.length !== 100) throw new Error(`unexpected page: total ${sample.total}, ${sample.items?.length} items`);
    const measure = (duration: number, connections = 10) =>
      new Promise<any>((resolve, reject) =>
        autocannon({ url: arca, connections, duration, headers, requests: [{ method: "GET", path: "/", setupRequest: (r: any) => ({ ...r, path: path() }) }] }, (e: Error | null, r: any) => (e ? reject(e) : resolve(r))),
      );
    await measure(2);
    // One client at a time (the latency of one answer), then 10 connections (throughput).
    const single = await measure(SECONDS, 1);
    const result = await measure(SECONDS);

    // Plain pg: the same page and exact count over the same index, sequentially.
    const times: number[] = [];
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    const deadline = Date.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (Date.now() < deadline) {
          const t0 = performance.now();
          const category = JSON.stringify(`c${Math.floor(Math.random() * 100)}`);
          await pool.query(
            `SELECT d.data, count(*) OVER () AS total FROM documents d WHERE d.project_id = $1 AND d.collection_id = 'items'
               AND (d.data #> '{category}') = $2::jsonb ORDER BY (d.data #> '{n}') DESC NULLS LAST, d.id LIMIT 100 OFFSET $3`,
            [PROJECT, category, 100 * Math.floor(Math.random() * pages)],
          );
          times.push(performance.now() - t0);
        }
      }),
    );
    await pool.end();
    times.sort((a, b) => a - b);
    console.log(`\nlists: ${DOCUMENTS} documents, filter on an indexed property (1 %), sort -n, pages of 100, 10 connections, ${SECONDS} s\n`);
    console.log(`arca, 1 client     ${single.requests.average.toFixed(0).padStart(6)} req/s   p50 ${single.latency.p50} ms   p99 ${single.latency.p99} ms   (aim p50 < 20, p99 < 60)`);
    console.log(`arca, 10 conns     ${result.requests.average.toFixed(0).padStart(6)} req/s   p50 ${result.latency.p50} ms   p99 ${result.latency.p99} ms`);
    console.log(`plain pg, 10 conns ${(times.length / SECONDS).toFixed(0).padStart(6)} q/s     p50 ${times[Math.floor(times.length / 2)].toFixed(1)} ms   p99 ${times[Math.floor(times.length * 0.99)].toFixed(1)} ms`);
    await client.end();
  } finally {
    await stopChildren(children);
    await cleanup();
  }
}
