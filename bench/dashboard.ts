/**
 * Dashboard benchmark: `npx tsx bench/dashboard.ts` (issue 14: "pages stay usable in under 1 s with
 * 100k documents").
 *
 * Runs the app as `npm start` does (scripts/start.ts, the built dashboard; run `next build`
 * first) over a fresh database, seeds BENCH_DOCUMENTS (default 100,000) documents in one
 * collection plus a 10-document baseline collection (one INSERT ... SELECT each), signs in with
 * Chromium through the form, and prints, for both collections, the median of BENCH_RUNS (5) of:
 * time from navigation to the documents table's first row (a cold page load), the next page,
 * a sort by a column (descending: two clicks), and a filter applied (each from the click to the
 * new first row).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Page } from "@playwright/test";
import pg from "pg";
import { benchDatabase } from "./bench-database";
import { stopChildren, runBenchmark } from "./bench-processes";

const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS || 100_000);
const RUNS = Number(process.env.BENCH_RUNS || 5);
const PORT = Number(process.env.BENCH_PORT || 3190);
const EMAIL = "bench-owner@example.test";
const PASSWORD = "bench dashboard password";
const PROJECT = "bench";

runBenchmark(main);

async function main() {
  if (!fs.existsSync(".next/BUILD_ID")) throw new Error("no dashboard build: run `npx next build` first");
  const { url, cleanup } = await benchDatabase("dashboard");
  const children: ChildProcess[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "arca-bench-dashboard-"));
  try {
    const app = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, NODE_ENV: "production", DATABASE_URL: url, ARCA_DATA_DIR: dataDir, PORT: String(PORT), ARCA_ADMIN_EMAIL: EMAIL, ARCA_ADMIN_PASSWORD: PASSWORD },
    });
    children.push(app);
    const base = `http://localhost:${PORT}`;
    for (const deadline = Date.now() + 120_000; ; ) {
      if ((await fetch(`${base}/api/health`).then((r) => r.status, () => 0)) === 200) break;
      if (app.exitCode !== null || Date.now() > deadline) throw new Error("the app did not start");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ id: string }>("SELECT id FROM users WHERE email = $1", [EMAIL]);
    await client.query(`INSERT INTO projects (id, name, owner_id, settings) VALUES ($1, 'Bench', $2, '{}')`, [PROJECT, rows[0].id]);
    await client.query(`INSERT INTO members (project_id, email, user_id, role, is_active, date_joined) VALUES ($1, $2, $3, 'owner', true, now())`, [PROJECT, EMAIL, rows[0].id]);
    const started = Date.now();
    for (const [collection, count] of [
      ["items", DOCUMENTS],
      ["small", 10],
    ] as const) {
      await client.query(`INSERT INTO collections (project_id, id) VALUES ($1, $2)`, [PROJECT, collection]);
      await client.query(
        `INSERT INTO documents (project_id, collection_id, id, data)
         SELECT $1, $2, 'i' || lpad(g::text, 7, '0'), jsonb_build_object('_id', 'i' || lpad(g::text, 7, '0'), 'title', 'Item ' || g, 'category', 'c' || (g % 100),
           'n', (g * 7919) % 1000003, 'price', round(((g * 31) % 10000) / 100.0, 2), 'in_stock', g % 3 = 0, 'tags', jsonb_build_array('t' || (g % 7), 't' || (g % 11)))
         FROM generate_series(1, $3::int) g`,
        [PROJECT, collection, count],
      );
      await client.query(`UPDATE collections SET documents_count = $3 WHERE project_id = $1 AND id = $2`, [PROJECT, collection, count]);
    }
    await client.query("ANALYZE documents");
    await client.end();
    console.log(`seeded ${DOCUMENTS.toLocaleString("en")} + 10 documents in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
    try {
      const page = await browser.newPage({ baseURL: base, viewport: { width: 1280, height: 800 } });
      await page.goto("/signin");
      await page.getByLabel("E-mail").fill(EMAIL);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(/\/projects$/);
      // Warm-up: the first visit compiles nothing (a production build) but fills caches alike for both.
      await measure(page, "small");
      const baseline = await runs(page, "small");
      const large = await runs(page, "items");
      console.log(`\nmedian of ${RUNS} runs, ms (2 cores; Chromium, 1280 px)`);
      console.log(`${"".padEnd(22)}${"10 documents".padStart(14)}${`${DOCUMENTS.toLocaleString("en")} documents`.padStart(20)}`);
      for (const key of Object.keys(large) as (keyof Timings)[]) console.log(`${key.padEnd(22)}${baseline[key].toFixed(0).padStart(14)}${large[key].toFixed(0).padStart(20)}`);
    } finally {
      await browser.close();
    }
  } finally {
    await stopChildren(children);
    fs.rmSync(dataDir, { recursive: true, force: true });
    await cleanup();
  }
}

interface Timings {
  "first table render": number;
  "next page": number;
  "sort (asc, then desc)": number;
  "filter applied": number;
}

async function runs(page: Page, collection: string): Promise<Timings> {
  const all: Timings[] = [];
  for (let i = 0; i < RUNS; i++) all.push(await measure(page, collection));
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return Object.fromEntries(Object.keys(all[0]).map((key) => [key, median(all.map((t) => t[key as keyof Timings]))])) as unknown as Timings;
}

/** Milliseconds from an action to the table showing what it asked for (a changed first row). */
async function measure(page: Page, collection: string): Promise<Timings> {
  const firstRowText = () => page.evaluate(() => document.querySelector("tbody tr")?.textContent ?? "");
  const changed = async (action: () => Promise<unknown>) => {
    const before = await firstRowText();
    const t0 = performance.now();
    await action();
    await page.waitForFunction(
      (previous) => {
        const row = document.querySelector("tbody tr")?.textContent ?? "";
        return (row && row !== previous) || document.body.textContent?.includes("No documents match.");
      },
      before,
      { timeout: 30_000, polling: "raf" },
    );
    return performance.now() - t0;
  };
  await page.goto("about:blank");
  const render = await changed(() => page.goto(`/projects/${PROJECT}/collections/${collection}`));
  const total = collection === "small" ? 10 : DOCUMENTS;
  const next = total > 25 ? await changed(() => page.getByRole("button", { name: "Next" }).click()) : Number.NaN;
  // Descending (two clicks: ascending may keep the same first row); the time to the new first row.
  const sortButton = page.getByRole("table").getByRole("button", { name: "n", exact: true });
  const sort = await changed(async () => {
    await sortButton.click();
    await page.waitForURL(/sort=n/);
    await sortButton.click();
    await page.waitForURL(/sort=-n/);
  });
  const filter = await changed(async () => {
    await page.getByLabel("Filter", { exact: true }).fill('{"category": "c42"}');
    await page.getByRole("button", { name: "Apply filter" }).click();
  });
  return { "first table render": render, "next page": next, "sort (asc, then desc)": sort, "filter applied": filter };
}
