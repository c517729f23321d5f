/**
 * Processors benchmark: `npm run bench:processors` (issue 13's aims; figures and ratios, no verdicts).
 *
 * Arca (bench/serve-arca.ts) runs as a child process over a fresh database. A 12-megapixel JPEG
 * (4000x3000, photo-like noise) is generated once. Measures:
 * 1. resize to fit 800x600 through a document write vs. sharp alone on the same file in this
 *    process (median of BENCH_RUNS, default 10), two ways: (a) a multipart create that uploads
 *    the JPEG and resizes it (upload and storage included), (b) an empty PATCH with
 *    `?process_only=thumb` re-running the resize of the stored original (the processor step alone);
 * 2. the server's RSS over 200 such writes (b), sampled every 25;
 * 3. latency of a GET of another (small) document while resizes run back to back (2 at a time)
 *    vs. the same GET when idle (median and p95 of 200 sequential GETs).
 */
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import sharp from "sharp";
import { benchDatabase, seedProject } from "./bench-database";
import { rssMiB, startArca, stopChildren, runBenchmark } from "./bench-processes";

const RUNS = Number(process.env.BENCH_RUNS || 10);
const WRITES = Number(process.env.BENCH_WRITES || 200);
const PROJECT = "bench";

runBenchmark(main);

async function main() {
  const { url, cleanup } = await benchDatabase("processors");
  const children: ChildProcess[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "arca-bench-img-"));
  try {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const secret = await seedProject(client, PROJECT);
    await client.end();
    const arca = await startArca(url, children);
    const pid = children[0].pid!;
    const auth = { "x-project": PROJECT, authorization: `Token ${secret}` };
    const api = async (method: string, pathname: string, body?: unknown) => {
      const started = performance.now();
      const response = await fetch(`${arca}${pathname}`, {
        method,
        headers: body instanceof FormData ? auth : { ...auth, "content-type": "application/json" },
        body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
      });
      const text = await response.text();
      if (response.status >= 300) throw new Error(`${method} ${pathname}: ${response.status} ${text}`);
      return { ms: performance.now() - started, body: text ? JSON.parse(text) : undefined };
    };

    const jpegPath = path.join(dir, "photo.jpg");
    const jpeg = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 40 } } })
      .blur(1.2)
      .jpeg({ quality: 85 })
      .toBuffer();
    fs.writeFileSync(jpegPath, jpeg);
    console.log(`input: 4000x3000 JPEG, ${(jpeg.length / 1024 / 1024).toFixed(1)} MiB`);

    await api("PUT", "/api/collections/photos/", {
      schema: {
        type: "object",
        additionalProperties: true,
        properties: {
          original: { type: "file" },
          thumb: { type: "file", processors: [{ name: "resize", in: { original_image: { property: "original" }, size: { value: [800, 600] } } }] },
        },
      },
    });
    await api("PUT", "/api/collections/photos2/", {
      schema: { type: "object", properties: { photo: { type: "file", processors: [{ name: "resize", in: { size: { value: [800, 600] } } }] } } },
    });
    await api("POST", "/api/collections/notes/documents/", { _id: "small", text: "hello" });
    const upload = () => {
      const form = new FormData();
      form.append("photo", new Blob([new Uint8Array(jpeg)]), "photo.jpg");
      return form;
    };
    const seed = new FormData();
    seed.append("_id", '"p1"');
    seed.append("original", new Blob([new Uint8Array(jpeg)]), "photo.jpg");
    await api("POST", "/api/collections/photos/documents/", seed);
    const rerun = () => api("PATCH", "/api/collections/photos/documents/p1/?process_only=thumb", {});

    // Warm-up of both paths (sharp's first call loads libvips' codecs).
    await sharp(jpegPath).resize(800, 600, { fit: "inside" }).jpeg().toBuffer();
    await rerun();
    await api("POST", "/api/collections/photos2/documents/", upload());

    // 1. Alternating rounds, so drift of the machine affects both sides alike.
    const alone: number[] = [];
    const viaUpload: number[] = [];
    const viaRerun: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      await sharp(jpegPath, { limitInputPixels: 50_000_000 }).rotate().resize(800, 600, { fit: "inside", withoutEnlargement: true }).jpeg().toBuffer();
      alone.push(performance.now() - started);
      viaRerun.push((await rerun()).ms);
      viaUpload.push((await api("POST", "/api/collections/photos2/documents/", upload())).ms);
    }
    const sharpMs = median(alone);
    console.log(`\n1. resize 4000x3000 -> 800x600 (median of ${RUNS})`);
    console.log(`   sharp alone (file -> buffer):            ${sharpMs.toFixed(1)} ms`);
    console.log(`   PATCH ?process_only=thumb (re-run):       ${median(viaRerun).toFixed(1)} ms   ratio ${(median(viaRerun) / sharpMs).toFixed(2)}x`);
    console.log(`   multipart create (upload + resize):       ${median(viaUpload).toFixed(1)} ms   ratio ${(median(viaUpload) / sharpMs).toFixed(2)}x`);

    // 2. RSS over 200 writes.
    const samples: string[] = [`0: ${rssMiB(pid).toFixed(0)}`];
    for (let i = 1; i <= WRITES; i++) {
      await rerun();
      if (i % Math.max(1, Math.round(WRITES / 8)) === 0) samples.push(`${i}: ${rssMiB(pid).toFixed(0)}`);
    }
    console.log(`\n2. server RSS (MiB) over ${WRITES} resize writes: ${samples.join(", ")}`);

    // 3. A small GET while resizes run, vs. idle.
    const gets = async () => {
      const times: number[] = [];
      for (let i = 0; i < 200; i++) times.push((await api("GET", "/api/collections/notes/documents/small/")).ms);
      return times;
    };
    const idle = await gets();
    let running = true;
    let resizes = 0;
    const background = [0, 1].map(async () => {
      while (running) {
        await rerun();
        resizes++;
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    const busy = await gets();
    running = false;
    await Promise.all(background);
    console.log(`\n3. GET of another document (200 sequential), ${resizes} resizes ran meanwhile`);
    console.log(`   idle:           median ${median(idle).toFixed(2)} ms, p95 ${quantile(idle, 0.95).toFixed(2)} ms`);
    console.log(`   during resizes: median ${median(busy).toFixed(2)} ms, p95 ${quantile(busy, 0.95).toFixed(2)} ms   ratio ${(median(busy) / median(idle)).toFixed(2)}x`);
  } finally {
    await stopChildren(children);
    fs.rmSync(dir, { recursive: true, force: true });
    await cleanup();
  }
}

function median(values: number[]): number {
  return quantile(values, 0.5);
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
