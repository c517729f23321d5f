/**
 * Import/export benchmark: `npm run bench:transfer` (issue 14: 100k documents without holding them
 * in the browser's or the server's memory).
 *
 * Against the real server (a child process): streams BENCH_DOCUMENTS (default 100,000) generated
 * JSON Lines as the body of `POST .../import/` (never built as one string here either), then
 * reads `GET .../export/` in JSON Lines and CSV and re-imports the CSV into a second collection.
 * Prints docs/s of each step and the server's RSS before, at its peak during, and after each one:
 * streaming holds it roughly flat, whatever the number of documents.
 */
import type { ChildProcess } from "node:child_process";
import { benchProject } from "./bench-database";
import { rssMiB, runBenchmark, startArca, stopChildren } from "./bench-processes";

const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS || 100_000);
const PROJECT = "bench";

runBenchmark(main);

async function main() {
  const { url, secret, cleanup } = await benchProject("transfer", PROJECT);
  const children: ChildProcess[] = [];
  try {
    const arca = await startArca(url, children);
    const pid = children[0].pid!;
    const headers = { "x-project": PROJECT, authorization: `Token ${secret}` };
    const schema = { type: "object", additionalProperties: true, properties: { title: { type: "string", position: 1 }, n: { type: "integer", position: 2 }, tags: { type: "array", position: 3 }, ok: { type: "boolean", position: 4 }, extra: { type: "object", position: 5 } } };
    for (const c of ["items", "copy"]) {
      const res = await fetch(`${arca}/api/collections/${c}/`, { method: "PUT", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ schema }) });
      if (res.status >= 300) throw new Error(`schema: ${res.status} ${await res.text()}`);
    }
    console.log(`\ntransfer: ${DOCUMENTS.toLocaleString("en")} documents, server RSS at start ${rssMiB(pid).toFixed(0)} MiB\n`);

    const imported = await measure(pid, "import JSON Lines", async () => {
      const res = await fetch(`${arca}/api/collections/items/import/`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/x-ndjson" },
        body: generatedLines(DOCUMENTS),
        duplex: "half",
      } as RequestInit);
      const report = await res.json();
      if (res.status !== 200 || report.created !== DOCUMENTS) throw new Error(`import: ${res.status} ${JSON.stringify(report).slice(0, 300)}`);
      return DOCUMENTS;
    });
    const jsonl = await measure(pid, "export JSON Lines", () => countLines(fetch(`${arca}/api/collections/items/export/`, { headers })));
    if (jsonl !== DOCUMENTS) throw new Error(`export JSON Lines: ${jsonl} lines`);
    let csvBytes = 0;
    const csv = await measure(pid, "export CSV", () => countLines(fetch(`${arca}/api/collections/items/export/?format=csv`, { headers }), (n) => (csvBytes += n)));
    if (csv !== DOCUMENTS + 1) throw new Error(`export CSV: ${csv} records`);
    await measure(pid, "import CSV (the export)", async () => {
      const source = await fetch(`${arca}/api/collections/items/export/?format=csv`, { headers });
      const res = await fetch(`${arca}/api/collections/copy/import/`, { method: "POST", headers: { ...headers, "content-type": "text/csv" }, body: source.body, duplex: "half" } as RequestInit);
      const report = await res.json();
      if (res.status !== 200 || report.created !== DOCUMENTS) throw new Error(`CSV import: ${res.status} ${JSON.stringify(report).slice(0, 300)}`);
      return DOCUMENTS;
    });
    const a = await (await fetch(`${arca}/api/collections/items/export/`, { headers })).text();
    const b = await (await fetch(`${arca}/api/collections/copy/export/`, { headers })).text();
    console.log(`\nround trip JSONL -> CSV -> JSONL identical: ${a === b} (${(a.length / 1024 / 1024).toFixed(1)} MiB of JSON Lines, ${(csvBytes / 1024 / 1024).toFixed(1)} MiB of CSV); ${imported} imported`);
    console.log(`server RSS at the end: ${rssMiB(pid).toFixed(0)} MiB`);
  } finally {
    await stopChildren(children);
    await cleanup();
  }
}

async function measure(pid: number, label: string, step: () => Promise<number>): Promise<number> {
  const before = rssMiB(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 50);
  const started = performance.now();
  try {
    const count = await step();
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `${label.padEnd(24)} ${count.toLocaleString("en").padStart(9)} in ${seconds.toFixed(1).padStart(5)} s = ${Math.round(count / seconds).toLocaleString("en").padStart(7)} docs/s   RSS ${before.toFixed(0)} -> peak ${peak.toFixed(0)} -> ${rssMiB(pid).toFixed(0)} MiB`,
    );
    return count;
  } finally {
    clearInterval(sampler);
  }
}

/** The documents as a stream of JSON Lines, produced as the upload pulls them. */
function generatedLines(count: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i >= count) return controller.close();
      let text = "";
      for (const end = Math.min(count, i + 500); i < end; i++)
        text += `${JSON.stringify({ _id: `d${String(i).padStart(7, "0")}`, title: `Item ${i}, "quoted"\nsecond line`, n: i, tags: ["a", i % 7], ok: i % 2 === 0, extra: { k: i } })}\n`;
      controller.enqueue(encoder.encode(text));
    },
  });
}

/**
 * Reads an answer to its end without keeping it, counting records: JSON Lines end with LF; CSV
 * records with CRLF (the titles' quoted line breaks are bare LF).
 */
async function countLines(answer: Promise<Response>, onBytes?: (n: number) => void): Promise<number> {
  const res = await answer;
  if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`);
  const crlf = /csv/.test(res.headers.get("content-type") ?? "");
  let lines = 0;
  let previous = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    onBytes?.(chunk.byteLength);
    for (let i = 0; i < chunk.length; i++) {
      if (chunk[i] === 10 && (!crlf || previous === 13)) lines++;
      previous = chunk[i];
    }
  }
  return lines;
}
