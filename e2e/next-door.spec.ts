import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { openSse } from "../lib/testing/sse-client";
import { stopProcessTree } from "./support/processes";
import { api, createProjectViaApi, createTokenViaApi, signUpViaApi, uniqueEmail } from "./support/api";

/**
 * Arca has two doors to one API: `npm start`'s custom server hands `/api/*` straight to the Hono
 * app, while plain `next start` reaches the same app through the catch-all route handler. This
 * starts the second door beside the first (same database, same data dir) and checks they agree.
 */
const NEXT_PORT = 3101;
const NEXT_URL = `http://localhost:${NEXT_PORT}`;

let next: ChildProcess | undefined;
let exited: Promise<unknown> | undefined;

test.describe("the Next door", () => {
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    const dataDir = process.env.E2E_DATA_DIR;
    if (!dataDir) throw new Error("E2E_DATA_DIR is not set: run through playwright.config.ts");
    const password = fs.readFileSync(path.join(dataDir, "postgres.password"), "utf8").trim();
    const databaseUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${process.env.E2E_PG_PORT}/arca`;
    const log = fs.openSync(path.resolve("e2e/artifacts/next-start.log"), "w");
    next = spawn("npx", ["next", "start", "-p", String(NEXT_PORT)], {
      env: { ...process.env, DATABASE_URL: databaseUrl, ARCA_DATA_DIR: dataDir, NEXT_TELEMETRY_DISABLED: "1", PORT: String(NEXT_PORT) },
      stdio: ["ignore", log, log],
    });
    exited = new Promise((resolve) => next!.once("exit", resolve));
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (next.exitCode !== null) throw new Error(`next start exited with ${next.exitCode}; see e2e/artifacts/next-start.log`);
      const status = await fetch(`${NEXT_URL}/api/user/`).then((r) => r.status, () => 0);
      if (status) break;
      if (Date.now() > deadline) throw new Error("next start did not answer within 90 s");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });

  test.afterAll(async () => {
    if (next && exited) await stopProcessTree(next, exited);
  });

  test("both doors answer the same", async () => {
    const session = await signUpViaApi(uniqueEmail("door"), "a door password");
    const project = `door-${Date.now().toString(36)}`;
    await createProjectViaApi(session, project);
    const token = await createTokenViaApi(session, project, { allow: { read: ["articles"] } });

    for (const base of [NEXT_URL, process.env.E2E_BASE_URL!]) {
      const anonymous = await api("/api/user/", { base });
      expect(anonymous, base).toEqual({ status: 401, body: { message: "Not authorized" } });

      const unknown = await api("/api/nope/", { base });
      expect(unknown, base).toEqual({ status: 404, body: { message: "Page not found" } });

      const info = await api("/api/collections/", { base, token, project });
      expect(info.status, base).toBe(200);
      expect(Array.isArray(info.body.items)).toBe(true);

      const withoutSlash = await api("/api/collections", { base, token, project });
      expect(withoutSlash.status, base).toBe(200);

      const me = await api("/api/user/", { base, session });
      expect(me.status, base).toBe(200);
    }
  });

  test("both doors stream file content with its length, ranges and HEAD", async () => {
    const session = await signUpViaApi(uniqueEmail("bytes"), "a door password");
    const project = `bytes-${Date.now().toString(36)}`;
    await createProjectViaApi(session, project);
    const token = await createTokenViaApi(session, project, { allow: { all: true } });
    const bytes = Buffer.from("0123456789".repeat(1000));

    for (const base of [NEXT_URL, process.env.E2E_BASE_URL!]) {
      const headers = { authorization: `Token ${token}`, "x-project": project };
      const form = new FormData();
      form.append("file", new Blob([bytes], { type: "text/plain" }), "digits.txt");
      const upload = await fetch(`${base}/api/collections/_files/documents/`, { method: "POST", headers, body: form });
      expect(upload.status, base).toBe(201);
      const { _id, size } = await upload.json();
      expect(size).toBe(bytes.length);
      const content = `${base}/api/collections/_files/documents/${_id}/content/`;

      const full = await fetch(content, { headers });
      expect(full.status, base).toBe(200);
      expect(full.headers.get("content-length"), base).toBe(String(bytes.length));
      expect(Buffer.from(await full.arrayBuffer()).equals(bytes), base).toBe(true);

      const range = await fetch(content, { headers: { ...headers, range: "bytes=10-19" } });
      expect(range.status, base).toBe(206);
      expect(range.headers.get("content-range"), base).toBe(`bytes 10-19/${bytes.length}`);
      expect(range.headers.get("content-length"), base).toBe("10");
      expect(await range.text()).toBe("0123456789");

      const head = await fetch(content, { method: "HEAD", headers });
      expect(head.status, base).toBe(200);
      expect(head.headers.get("content-length"), base).toBe(String(bytes.length));
    }
  });
  test("both doors stream the change feed to an EventSource and resume it", async ({ page }) => {
    const session = await signUpViaApi(uniqueEmail("feed"), "a door password");
    const project = `feed-${Date.now().toString(36)}`;
    await createProjectViaApi(session, project);
    const made = await api("/api/collections/", { json: { _id: "notes", name: "Notes" }, session, project });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const token = await createTokenViaApi(session, project, { allow: { read: ["notes"] } });
    const feedPath = `/api/collections/notes/events/?token=${encodeURIComponent(token)}`;

    for (const base of [NEXT_URL, process.env.E2E_BASE_URL!]) {
      // EventSource cannot send X-Project: the page lives on the project's host (Chromium resolves
      // *.localhost to loopback), and the token rides in the query, as a browser client does it.
      const origin = base.replace("//localhost", `//${project}.localhost`);
      await page.goto(`${origin}/api/info/`);
      await page.evaluate((src) => {
        const w = window as unknown as { feed: { open: boolean; events: { type: string; id: string; data: { _id: string } }[] }; feedSource: EventSource };
        w.feed = { open: false, events: [] };
        w.feedSource = new EventSource(src);
        w.feedSource.onopen = () => (w.feed.open = true);
        for (const type of ["created", "updated", "deleted"])
          w.feedSource.addEventListener(type, (e) => w.feed.events.push({ type, id: (e as MessageEvent).lastEventId, data: JSON.parse((e as MessageEvent).data) }));
      }, feedPath);
      await page.waitForFunction(() => (window as unknown as { feed: { open: boolean } }).feed.open);

      const note = await api("/api/collections/notes/documents/", { json: { text: `via ${base}` }, session, project });
      expect(note.status).toBe(201);
      const patched = await api(`/api/collections/notes/documents/${note.body._id}/`, { method: "PATCH", json: { text: "changed" }, session, project });
      expect(patched.status).toBe(200);
      await page.waitForFunction(() => (window as unknown as { feed: { events: unknown[] } }).feed.events.length >= 2, undefined, { timeout: 15_000 });
      const events = await page.evaluate(() => {
        const w = window as unknown as { feed: { events: { type: string; id: string; data: { _id: string; text: string } }[] }; feedSource: EventSource };
        w.feedSource.close();
        return w.feed.events;
      });
      expect(events.map((e) => [e.type, e.data._id, e.data.text]), base).toEqual([
        ["created", note.body._id, `via ${base}`],
        ["updated", note.body._id, "changed"],
      ]);
      expect(Number(events[1].id)).toBeGreaterThan(Number(events[0].id));

      // Proxy-safe headers, and a resume after the first event gets the second, through this door.
      const resumed = await openSse(`${base}${feedPath}&last_event_id=${events[0].id}`, { "x-project": project });
      try {
        expect(resumed.status, base).toBe(200);
        expect(resumed.headers["content-type"], base).toMatch(/^text\/event-stream/);
        expect(resumed.headers["cache-control"], base).toContain("no-cache");
        expect(resumed.headers["x-accel-buffering"], base).toBe("no");
        const [first] = await resumed.waitFor(1, 15_000);
        expect([first.event, first.id, JSON.parse(first.data).text], base).toEqual(["updated", events[1].id, "changed"]);
      } finally {
        resumed.close();
      }
    }
  });
});
