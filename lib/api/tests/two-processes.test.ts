import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { hashPassword } from "../../auth/password";
import { startApiProcess, type ApiProcess } from "../../testing/api-process";
import { seedProject } from "../../testing/seed-project";
import { openSse } from "../../testing/sse-client";
import { PNG } from "./files-helpers";

/**
 * Scale-out: two server processes on one database (and, for file bytes, one data directory, as
 * on one machine; docs/deploy.md puts them on S3 across machines). Either answers for the other's
 * writes, counters stay exact under concurrent writes through both, a deactivated token stops on
 * both within the auth cache's period, rate limits are shared, a change-feed subscriber of one
 * gets the other's writes (writers signal other processes after commit: lib/outbox), and a hook's
 * events are delivered once each, never by both processes.
 */
const url = inject("databaseUrl");
let db: pg.Client;
let a: ApiProcess;
let b: ApiProcess;
let project: string;
let headers: Record<string, string>;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "arca-two-"));

beforeAll(async () => {
  db = new pg.Client({ connectionString: url });
  await db.connect();
  project = `two-${Date.now().toString(36)}`;
  const token = await seedProject(db, project);
  headers = { "x-project": project, authorization: `Token ${token}`, "content-type": "application/json" };
  // A feed recheck longer than any wait here: the feed test then passes only through the NOTIFY.
  const env = { ARCA_HOOKS_ALLOW_PRIVATE: "true", ARCA_RATE_LIMIT_LOGIN_PER_ADDRESS: "4", ARCA_FEED_RECHECK_MS: "600000" };
  [a, b] = await Promise.all([startApiProcess(url, env, dataDir), startApiProcess(url, env, dataDir)]);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.kill("SIGTERM"), b?.kill("SIGTERM")]);
  await db.end();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const call = (server: ApiProcess, pathname: string, init: RequestInit & { json?: unknown } = {}) =>
  fetch(`${server.url}${pathname}`, {
    ...init,
    method: init.method ?? (init.json !== undefined ? "POST" : "GET"),
    headers: { ...headers, ...(init.headers as Record<string, string>) },
    body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
  });

describe("two server processes on one database", () => {
  it("a write through one is read through the other, files included", async () => {
    expect((await call(a, "/api/collections/shared/documents/", { json: { _id: "x", v: 1 } })).status).toBe(201);
    expect(await (await call(b, "/api/collections/shared/documents/x/")).json()).toEqual({ _id: "x", v: 1 });
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(PNG)]), "dot.png");
    const uploaded = await fetch(`${b.url}/api/collections/_files/documents/`, { method: "POST", headers: { "x-project": project, authorization: headers.authorization }, body: form });
    expect(uploaded.status).toBe(201);
    const file = await uploaded.json();
    const content = await call(a, `/api/collections/_files/documents/${file._id}/content/`);
    expect(Buffer.from(await content.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it("a change-feed subscriber of one process gets, in order, what is written through the other", async () => {
    const feed = await openSse(`${b.url}/api/collections/feed/events/`, { "x-project": project, authorization: headers.authorization });
    expect(feed.status).toBe(200);
    try {
      expect((await call(a, "/api/collections/feed/documents/", { json: { _id: "one" } })).status).toBe(201);
      expect((await call(a, "/api/collections/feed/documents/one/", { method: "PATCH", json: { n: 2 } })).status).toBe(200);
      expect((await call(a, "/api/collections/feed/documents/one/", { method: "DELETE" })).status).toBe(204);
      const events = await feed.waitFor(3);
      expect(events.map((e) => [e.event, JSON.parse(e.data)._id])).toEqual([
        ["created", "one"],
        ["updated", "one"],
        ["deleted", "one"],
      ]);
    } finally {
      feed.close();
    }
  });

  it("counters stay exact under concurrent writes through both", async () => {
    const writes = Array.from({ length: 200 }, (_, i) => call(i % 2 ? a : b, "/api/collections/counted/documents/", { json: { i, pad: "x".repeat(i) } }));
    expect((await Promise.all(writes)).every((r) => r.status === 201)).toBe(true);
    const deletes = await call(a, "/api/collections/counted/documents/", { json: { filter: { i: { $lt: 50 } } }, headers: { "x-action": "delete" } });
    expect(await deletes.json()).toEqual({ deleted: 50 });
    const collection = await (await call(b, "/api/collections/counted/")).json();
    expect(collection.documents_count).toBe(150);
    const { rows } = await db.query("SELECT coalesce(sum(octet_length(data::text)), 0)::bigint AS n FROM documents WHERE project_id = $1", [project]);
    const { rows: totals } = await db.query("SELECT data_size FROM project_totals WHERE project_id = $1", [project]);
    expect(Number(totals[0].data_size)).toBe(Number(rows[0].n));
  });

  it("a collection deleted through one process is made again by a create through the other, which knew it as existing", async () => {
    // The first create makes the collection; the second finds it, and `a` keeps that in memory.
    for (const _id of ["first", "known"]) expect((await call(a, "/api/collections/recreated/documents/", { json: { _id } })).status).toBe(201);
    expect((await call(b, "/api/collections/recreated/", { method: "DELETE" })).status).toBe(204);
    const created = await call(a, "/api/collections/recreated/documents/", { json: { _id: "second" } });
    expect(created.status).toBe(201);
    const collection = await (await call(b, "/api/collections/recreated/")).json();
    expect(collection.documents_count).toBe(1);
    expect((await call(b, "/api/collections/recreated/documents/second/")).status).toBe(200);
    expect((await call(b, "/api/collections/recreated/documents/first/")).status).toBe(404);
  });

  it("a token deactivated through one process stops working on the other within the auth cache period", async () => {
    const created = await (await call(a, "/api/collections/_tokens/documents/", { json: { name: "short-lived", permission: { allow: { all: true } } } })).json();
    const theirs = { ...headers, authorization: `Token ${created.token}` };
    expect((await fetch(`${a.url}/api/collections/shared/documents/x/`, { headers: theirs })).status).toBe(200);
    expect((await fetch(`${b.url}/api/collections/shared/documents/x/`, { headers: theirs })).status).toBe(200);
    expect((await call(b, `/api/collections/_tokens/documents/${created._id}/`, { method: "PATCH", json: { is_active: false } })).status).toBe(200);
    const deactivated = Date.now();
    for (;;) {
      const status = (await fetch(`${a.url}/api/collections/shared/documents/x/`, { headers: theirs })).status;
      if (status === 401 || status === 403) break;
      expect(Date.now() - deactivated).toBeLessThan(3000); // ARCA_AUTH_CACHE_MS is 1 s
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  it("rate limits are shared: wrong passwords through both count together", async () => {
    const email = `limited-${Date.now().toString(36)}@example.test`;
    await db.query("INSERT INTO users (id, email, password_hash, confirmed_at) VALUES ($1, $2, $3, now())", [`u-${email}`, email, await hashPassword("right-password")]);
    const login = (server: ApiProcess, password: string) =>
      fetch(`${server.url}/api/user/`, { method: "POST", headers: { "content-type": "application/json", "x-action": "login" }, body: JSON.stringify({ email, password }) });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await login(i % 2 ? a : b, "wrong-password")).status);
    expect(statuses).toEqual([401, 401, 401, 401]);
    const fifth = await login(a, "wrong-password");
    expect(fifth.status).toBe(429);
    expect(Number(fifth.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await login(b, "right-password")).status).toBe(429);
  });

  it("a hook's deliveries are shared by both processes and each event is delivered once", async () => {
    const seen = new Map<string, number>();
    const receiver = http.createServer((req, res) => {
      const op = String(req.headers["x-hook-operation-id"]);
      seen.set(op, (seen.get(op) ?? 0) + 1);
      req.resume();
      req.on("end", () => res.writeHead(204).end());
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const port = (receiver.address() as { port: number }).port;
    try {
      expect((await call(a, "/api/collections/_hooks/documents/", { json: { collection: "hooked", url: `http://127.0.0.1:${port}/` } })).status).toBe(201);
      const writes = Array.from({ length: 200 }, (_, i) => call(i % 2 ? a : b, "/api/collections/hooked/documents/", { json: { i } }));
      expect((await Promise.all(writes)).every((r) => r.status === 201)).toBe(true);
      const deadline = Date.now() + 20_000;
      while (seen.size < 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(seen.size).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  });
});
