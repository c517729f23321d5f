import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { connectDatabase, disconnectDatabase, runAsBackground } from "../db/pool";
import { stopOutboxListener } from "../outbox/outbox-listener";
import { startHookReceiver, type HookReceiver } from "../testing/hook-receiver";
import { ownDatabase } from "../testing/own-database";
import { seedProject } from "../testing/seed-project";
import { createHook } from "./hooks";
import { startHookWorkers, type HookWorkers } from "./hook-workers";

/**
 * The delivery workers' pacing, on a database of this file's own (the suite's other servers would
 * claim these deliveries too) and with the safety-net recheck stretched to 10 minutes, so only
 * the workers' own wakes can deliver anything here.
 */
const PROJECT = "workers";
let database: Awaited<ReturnType<typeof ownDatabase>>;
let db: pg.Client;
let receiver: HookReceiver;
let workers: HookWorkers | undefined;

beforeAll(async () => {
  database = await ownDatabase(inject("databaseUrl"), "hook_workers");
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
  await seedProject(db, PROJECT);
  connectDatabase(database.url);
  receiver = await startHookReceiver();
});

afterEach(async () => {
  await workers?.stop();
  workers = undefined;
});

afterAll(async () => {
  await stopOutboxListener();
  await disconnectDatabase();
  await receiver.close();
  await db.end();
  await database.drop();
});

let hooks = 0;
/** A hook to `path` with `count` deliveries queued at once (as the dispatcher queues them). */
async function queued(path: string, count: number): Promise<string> {
  const hook = await createHook(PROJECT, { _id: `h${++hooks}`, collection: "c", url: `${receiver.url}${path}` });
  await db.query(
    `INSERT INTO hook_deliveries (id, project_id, hook_id, trigger, collection_id, document_id, payload)
     SELECT $2 || '-' || g, $1, $2, 'created', 'c', 'd' || g, jsonb_build_object('_id', 'd' || g) FROM generate_series(1, $3::int) g`,
    [PROJECT, hook._id, count],
  );
  return hook._id;
}

const forHook = (id: string) => (r: { headers: Record<string, unknown> }) => r.headers["x-hook-id"] === id;

/** The most deliveries the receiver held at once (each `/slow` answer takes 300 ms after arrival). */
function mostAtOnce(arrivals: number[]): number {
  return Math.max(...arrivals.map((start) => arrivals.filter((at) => at <= start && at + 300 > start).length));
}

describe("hook workers", () => {
  it("keep claiming as their deliveries complete (woken by them, never by a timer), past the 48 one hook may have in flight", async () => {
    workers = runAsBackground(() => startHookWorkers({ idleRecheckMs: 600_000 }));
    const hook = await queued("/ok/many", 150);
    await db.query("SELECT pg_notify('arca_hooks', '')");
    // A completion that came while the workers looked for the next due time was lost, and the
    // rest waited for the recheck (5 s in production): here it would never come.
    const delivered = await receiver.waitFor(150, 20_000, forHook(hook));
    expect(new Set(delivered.map((r) => JSON.parse(r.body).payload._id)).size).toBe(150);
  }, 30_000);

  /** 40 deliveries to `/slow` (300 ms each) with the API's load at `load`: the most held at once. */
  async function mostAtOnceUnder(load: number): Promise<number> {
    workers = runAsBackground(() => startHookWorkers({ idleRecheckMs: 600_000, apiLoad: () => load }));
    const hook = await queued(`/slow/${load}`, 40);
    await db.query("SELECT pg_notify('arca_hooks', '')");
    const delivered = await receiver.waitFor(40, 20_000, forHook(hook));
    return mostAtOnce(delivered.map((r) => r.at));
  }

  it("while the API is busy, keep at most 16 deliveries in flight, and still deliver every one", async () => {
    expect(await mostAtOnceUnder(1)).toBeLessThanOrEqual(16);
  }, 30_000);

  it("while the API is idle, deliver 40 at once", async () => {
    expect(await mostAtOnceUnder(0.1)).toBeGreaterThan(16);
  }, 30_000);
});
