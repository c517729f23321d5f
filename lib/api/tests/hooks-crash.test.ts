import http from "node:http";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startApiProcess, type ApiProcess } from "../../testing/api-process";
import { ownDatabase } from "../../testing/own-database";
import { seedProject } from "../../testing/seed-project";

/**
 * At least once across kill -9: 1,000 deliveries queued or in flight when the server process is
 * SIGKILLed; a new process takes over (leases of the dead one expire) and the receiver sees every
 * event at least once. Duplicates (the same X-Hook-Operation-ID twice) are allowed and reported.
 */
const DOCUMENTS = 1000;
// A database of its own: the suite's other servers share the run's database and would claim (and
// delay) these deliveries, which is not what this test measures.
let database: Awaited<ReturnType<typeof ownDatabase>>;
let url: string;
let db: pg.Client;
let receiver: http.Server;
let receiverUrl: string;
const received = new Map<string, { document: string; count: number }>();
const processes: ApiProcess[] = [];

beforeAll(async () => {
  database = await ownDatabase(inject("databaseUrl"), "hooks_crash");
  url = database.url;
  db = new pg.Client({ connectionString: url });
  await db.connect();
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const op = String(req.headers["x-hook-operation-id"]);
      const document = JSON.parse(Buffer.concat(chunks).toString("utf8")).payload._id;
      const seen = received.get(op);
      received.set(op, { document, count: (seen?.count ?? 0) + 1 });
      // Slow enough that many deliveries are in flight when the process dies.
      setTimeout(() => res.writeHead(204).end(), 5 + Math.random() * 20);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
});

afterAll(async () => {
  for (const p of processes) await p.kill("SIGKILL");
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
  await db.end();
  await database.drop();
});

describe("hooks across kill -9", () => {
  it("delivers every one of 1,000 events at least once after the server is SIGKILLed mid-way", async () => {
    const project = `crash-${Date.now().toString(36)}`;
    const token = await seedProject(db, project);
    const env = { ARCA_HOOKS_ALLOW_PRIVATE: "true" };
    const first = await startApiProcess(url, env);
    processes.push(first);
    const headers = { "x-project": project, authorization: `Token ${token}`, "content-type": "application/json" };
    // A short lease (5 + 6 x (0.2 + 0.5) s) so the survivor takes over within seconds.
    const hook = await fetch(`${first.url}/api/collections/_hooks/documents/`, {
      method: "POST",
      headers,
      body: JSON.stringify({ collection: "crash", url: `${receiverUrl}/`, timeout: { connect: 0.2, read: 0.5 } }),
    });
    expect(hook.status, await hook.clone().text()).toBe(201);

    let acknowledged = 0;
    let next = 0;
    const writers = Array.from({ length: 10 }, async () => {
      while (next < DOCUMENTS) {
        const id = `d${next++}`;
        try {
          const r = await fetch(`${first.url}/api/collections/crash/documents/`, { method: "POST", headers, body: JSON.stringify({ _id: id }) });
          if (r.status === 201) acknowledged++;
        } catch {
          return; // the server is gone
        }
      }
    });
    // Kill once a third of the deliveries have arrived: writes and deliveries are both mid-way.
    while (received.size < DOCUMENTS / 3) await new Promise((r) => setTimeout(r, 5));
    await first.kill("SIGKILL");
    await Promise.all(writers);
    const beforeRestart = received.size;

    const second = await startApiProcess(url, env);
    processes.push(second);
    // The rest of the documents, through the new process.
    const { rows } = await db.query("SELECT id FROM documents WHERE project_id = $1 AND collection_id = 'crash'", [project]);
    const stored = new Set(rows.map((r) => r.id as string));
    for (let i = 0; i < DOCUMENTS; i++) {
      if (stored.has(`d${i}`)) continue;
      const r = await fetch(`${second.url}/api/collections/crash/documents/`, { method: "POST", headers, body: JSON.stringify({ _id: `d${i}` }) });
      expect(r.status).toBe(201);
    }
    const deadline = Date.now() + 60_000;
    const documents = () => new Set([...received.values()].map((r) => r.document));
    while (documents().size < DOCUMENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

    expect(documents().size).toBe(DOCUMENTS);
    // Deliveries the dead process had in flight come back when their leases end: wait for them.
    await expect
      .poll(async () => (await db.query("SELECT count(*)::int AS n FROM hook_deliveries WHERE project_id = $1 AND state = 'success'", [project])).rows[0].n, { timeout: 30_000 })
      .toBe(DOCUMENTS);
    const duplicates = [...received.values()].filter((r) => r.count > 1).length;
    console.log(
      `hooks crash test: ${acknowledged} writes acknowledged before the kill, ${beforeRestart} deliveries received before the restart, ` +
        `${received.size} distinct operation ids for ${DOCUMENTS} documents, ${duplicates} delivered more than once`,
    );
    // One operation id per event: a re-delivery repeats its id, never invents a new one.
    expect(received.size).toBe(DOCUMENTS);
  }, 120_000);
});
