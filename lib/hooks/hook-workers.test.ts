import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { connectDatabase, disconnectDatabase, runAsBackground } from "../db/pool";
import { stopOutboxListener } from "../outbox/outbox-listener";
import { startHookReceiver, type HookReceiver } from "../testing/hook-receiver";
import { ownDatabase } from "../testing/own-database";
import { seedProject } from "../testing/seed-project";
import { createHook } from "./hooks";
import { CLAIM_PLANNING, claimStatement } from "./hook-deliveries";
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
async function queued(path: string, count: number, fields: Record<string, unknown> = {}): Promise<string> {
  const hook = await createHook(PROJECT, { _id: `h${++hooks}`, collection: "c", url: `${receiver.url}${path}`, ...fields });
  await queueMore(hook._id, 1, count);
  return hook._id;
}

/** Deliveries `from`..`from + count - 1` of `hook`, queued behind those before. */
async function queueMore(hook: string, from: number, count: number): Promise<void> {
  await db.query(
    `INSERT INTO hook_deliveries (id, project_id, hook_id, trigger, collection_id, document_id, payload)
     SELECT $2 || '-' || g, $1, $2, 'created', 'c', 'd' || g, jsonb_build_object('_id', 'd' || g) FROM generate_series($3::int, $3::int + $4::int - 1) g`,
    [PROJECT, hook, from, count],
  );
  await db.query("SELECT pg_notify('arca_hooks', '')");
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

  it("while the API is busy, give one hook at most 8 of the 16 slots, counting those in flight: a receiver that never answers leaves the others theirs", async () => {
    workers = runAsBackground(() => startHookWorkers({ idleRecheckMs: 600_000, apiLoad: () => 1 }));
    const dead = await queued("/hang/paced", 5, { timeout: { read: 60, connect: 1 } });
    await receiver.waitFor(5, 10_000, forHook(dead));
    await queueMore(dead, 6, 20);
    const alive = await queued("/ok/paced", 10);
    // With 5 of the dead hook in flight, a claim may give it 3 more, not 8; the rest go to `alive`.
    await receiver.waitFor(10, 5_000, forHook(alive));
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests.filter(forHook(dead))).toHaveLength(8);
  }, 30_000);

  it("give one project at most 12 of the 16 paced slots (96 of 128 idle): its dead receivers never hold another project's deliveries back", async () => {
    // The earlier tests' dead hook must not take slots here.
    await db.query("DELETE FROM hook_deliveries WHERE project_id = $1 AND state = 'queued'", [PROJECT]);
    workers = runAsBackground(() => startHookWorkers({ idleRecheckMs: 600_000, apiLoad: () => 1 }));
    const [deadProject, otherProject] = ["workers-dead", "workers-other"];
    await seedProject(db, deadProject);
    await seedProject(db, otherProject);
    const queueFor = async (project: string, hook: string, count: number) => {
      await db.query(
        `INSERT INTO hook_deliveries (id, project_id, hook_id, trigger, collection_id, document_id, payload)
         SELECT $2 || '-' || g, $1, $2, 'created', 'c', 'd' || g, jsonb_build_object('_id', 'd' || g) FROM generate_series(1, $3::int) g`,
        [project, hook, count],
      );
      await db.query("SELECT pg_notify('arca_hooks', '')");
    };
    // Two hooks, each within its own cap of 8, would take all 16 slots between them.
    const dead: string[] = [];
    for (const name of ["dead-a", "dead-b"]) {
      dead.push((await createHook(deadProject, { _id: name, collection: "c", url: `${receiver.url}/hang/${name}`, timeout: { read: 60, connect: 1 } }))._id);
      await queueFor(deadProject, name, 10);
    }
    const deadHeld = () => receiver.requests.filter((r) => dead.some((id) => forHook(id)(r))).length;
    for (const deadline = Date.now() + 10_000; deadHeld() < 12 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
    const alive = (await createHook(otherProject, { _id: "alive", collection: "c", url: `${receiver.url}/ok/other-project` }))._id;
    await queueFor(otherProject, alive, 5);
    await receiver.waitFor(5, 5_000, forHook(alive));
    expect(deadHeld()).toBe(12);
    // Nothing of the dead project may wait for the tests after this one.
    await db.query("DELETE FROM hook_deliveries WHERE project_id = $1", [deadProject]);
  }, 30_000);
});

describe("hook dispatcher", () => {
  /** `count` created events in collection `collection`, committed at once, and the commit's wake. */
  async function events(collection: string, count: number): Promise<void> {
    await db.query(
      `INSERT INTO document_events (project_id, collection_id, document_id, kind, after)
       SELECT $1, $2, 'd' || g, 'created', jsonb_build_object('_id', 'd' || g) FROM generate_series(1, $3::int) g`,
      [PROJECT, collection, count],
    );
    await db.query("SELECT pg_notify('arca_events', '')");
  }

  const queuedFor = async (hook: string) =>
    Number((await db.query("SELECT count(*) FROM hook_deliveries WHERE project_id = $1 AND hook_id = $2", [PROJECT, hook])).rows[0].count);

  /** The first count of queued deliveries seen after 1,000 hooked events commit, and when all are delivered. */
  async function dispatchUnder(load: number): Promise<number> {
    workers = runAsBackground(() => startHookWorkers({ idleRecheckMs: 600_000, apiLoad: () => load }));
    const collection = `paced${load}`;
    const hook = (await createHook(PROJECT, { _id: `dispatch${load}`, collection, url: `${receiver.url}/ok/${collection}` }))._id;
    await events(collection, 1000);
    let first = 0;
    for (const deadline = Date.now() + 10_000; !first && Date.now() < deadline; ) {
      first = await queuedFor(hook);
      await new Promise((r) => setTimeout(r, 5));
    }
    const delivered = await receiver.waitFor(1000, 30_000, forHook(hook));
    expect(new Set(delivered.map((r) => JSON.parse(r.body).payload._id)).size).toBe(1000);
    return first;
  }

  it("while the API is busy, queues deliveries at the workers' pace (128 a step, 5 steps a second), and still delivers every one", async () => {
    expect(await dispatchUnder(1)).toBeLessThanOrEqual(256);
  }, 60_000);

  it("while the API is idle, queues what a step reads at once (500 events)", async () => {
    expect(await dispatchUnder(0)).toBeGreaterThanOrEqual(500);
  }, 60_000);
});

describe("the claim", () => {
  interface PlanNode {
    "Relation Name"?: string;
    Alias?: string;
    "Index Name"?: string;
    "Actual Rows": number;
    "Actual Loops": number;
    Plans?: PlanNode[];
  }
  /** Rows each node read from `hook_deliveries` (index, rows x loops). */
  function queueReads(node: PlanNode): { index?: string; rows: number }[] {
    const own = node["Relation Name"] === "hook_deliveries" ? [{ index: node["Index Name"], rows: node["Actual Rows"] * node["Actual Loops"] }] : [];
    return [...own, ...(node.Plans ?? []).flatMap(queueReads)];
  }

  /**
   * The claim's plan as the workers run it: prepared as `name`, on the generic plan, within the
   * caller's transaction (which deallocates `name` after it ends).
   */
  async function explainClaim(name: string, options: { analyze: boolean }): Promise<PlanNode> {
    const { text, values } = claimStatement(16, { perHook: 8, perProject: 12 }, new Map()).toQuery();
    const literal = (v: unknown) => db.escapeLiteral(Array.isArray(v) ? `{${v.map((e) => JSON.stringify(String(e))).join(",")}}` : String(v));
    await db.query(`${CLAIM_PLANNING}; SET LOCAL plan_cache_mode = force_generic_plan`);
    await db.query(`PREPARE ${name} AS ${text}`);
    const [{ "QUERY PLAN": [plan] }] = (await db.query(`EXPLAIN (${options.analyze ? "ANALYZE, " : ""}FORMAT JSON) EXECUTE ${name}(${values.map(literal).join(", ")})`)).rows;
    return plan.Plan;
  }

  // As the dispatcher takes them (lib/hooks/dispatch-hook-events.ts), with a delivered history or
  // none, and a few queued or none, then a burst of 2,000 documents for three hooks.
  it.each([
    { history: 30_000, queuedAtAnalyze: 20, label: "a history and 20 queued" },
    { history: 0, queuedAtAnalyze: 0, label: "nothing queued" },
  ])("walks the due index in order and probes the rest per row, on statistics taken with $label", async ({ history, queuedAtAnalyze }) => {
    const hooks = await Promise.all(["a", "b", "c"].map(async (name) => (await createHook(PROJECT, { _id: `stale-${name}`, collection: "c", url: `${receiver.url}/ok/stale` }))._id));
    let next = 1;
    const enqueue = async (documents: number, state = "queued") => {
      await db.query(
        `INSERT INTO hook_deliveries (id, project_id, hook_id, event_id, trigger, collection_id, document_id, state)
         SELECT 'stale-' || g || '-' || h, $1, h, g, 'created', 'c', 'stale' || g, $5
         FROM generate_series($3::int, $3::int + $4::int - 1) g, unnest($2::text[]) h ORDER BY g, h`,
        [PROJECT, hooks, next, documents, state],
      );
      next += documents;
    };
    await enqueue(history / 3, "success");
    await enqueue(queuedAtAnalyze);
    await db.query("BEGIN");
    await db.query("SET LOCAL default_statistics_target = 10");
    await db.query("ANALYZE hooks, hook_deliveries (project_id, hook_id, document_id, event_id, state, next_attempt_at, lease_until)");
    await db.query("COMMIT");
    await enqueue(2000);
    // As the workers run it: prepared, and after a few runs on the generic plan.
    await db.query("BEGIN");
    try {
      const plan = await explainClaim("stale_claim", { analyze: true });
      // Planned as joins, it read all 6,000 queued rows (through the event index, or a bitmap)
      // and sorted them, for 16.
      const reads = queueReads(plan);
      expect(Math.max(...reads.map((r) => r.rows))).toBeLessThan(500);
      expect(reads.map((r) => r.index)).toContain("hook_deliveries_due_idx");
      expect(reads.map((r) => r.index)).toContain("hook_deliveries_order_idx");
    } finally {
      await db.query("ROLLBACK");
      await db.query("DEALLOCATE stale_claim");
      await db.query("DELETE FROM hook_deliveries WHERE hook_id = ANY($1)", [hooks]);
      await db.query("DELETE FROM hooks WHERE project_id = $1 AND id = ANY($2)", [PROJECT, hooks]);
    }
  }, 30_000);

  it("keeps the due index for the walk: the order check cannot read it, even with its own index gone", async () => {
    // On a queue vacuumed while empty, the order check was planned as a skip scan of the due
    // index on `seq`, reading every queued row before each candidate (migration 0021). Without
    // the order index that is the plan the old predicate leads to; now the index is not a candidate.
    const hook = (await createHook(PROJECT, { _id: "walk-only", collection: "c", url: `${receiver.url}/ok/walk-only` }))._id;
    await db.query(
      `INSERT INTO hook_deliveries (id, project_id, hook_id, event_id, trigger, collection_id, document_id)
       SELECT 'walk-only-' || g, $1, $2, g, 'created', 'c', 'w' || (g % 50) FROM generate_series(1, 200) g`,
      [PROJECT, hook],
    );
    await db.query("BEGIN");
    try {
      await db.query("DROP INDEX hook_deliveries_order_idx");
      const plan = await explainClaim("walk_only_claim", { analyze: false });
      const scans = (node: PlanNode): { alias?: string; index?: string }[] => [
        ...(node["Relation Name"] === "hook_deliveries" ? [{ alias: node.Alias, index: node["Index Name"] }] : []),
        ...(node.Plans ?? []).flatMap(scans),
      ];
      const all = scans(plan);
      // One walk of the due index (the planner renames the walk's alias); the check ("p") elsewhere.
      expect(all.filter((s) => s.index === "hook_deliveries_due_idx")).toHaveLength(1);
      const check = all.filter((s) => s.alias === "p");
      expect(check.length).toBeGreaterThan(0);
      expect(check.map((s) => s.index)).not.toContain("hook_deliveries_due_idx");
    } finally {
      await db.query("ROLLBACK");
      await db.query("DEALLOCATE walk_only_claim");
      await db.query("DELETE FROM hook_deliveries WHERE hook_id = $1", [hook]);
      await db.query("DELETE FROM hooks WHERE project_id = $1 AND id = $2", [PROJECT, hook]);
    }
  });

  it("updates claimed rows in place (HOT): no new entry in the queue's indexes", async () => {
    const hook = (await createHook(PROJECT, { _id: "in-place", collection: "c", url: `${receiver.url}/ok/in-place` }))._id;
    // Only this test's deliveries are queued (the database is this file's own).
    await db.query("UPDATE hook_deliveries SET state = 'success' WHERE state = 'queued'");
    // Enough rows to fill pages: on full pages (fillfactor 100) a claim's new row version moved
    // to another page, and every index got a new entry for it.
    await queueMore(hook, 1, 600);
    await db.query("BEGIN");
    try {
      await db.query(CLAIM_PLANNING);
      // This session's counts not yet reported to the statistics (they span transactions).
      const counts = async () =>
        (
          await db.query<{ hot: number; updated: number }>(
            "SELECT pg_stat_get_xact_tuples_hot_updated('hook_deliveries'::regclass)::int AS hot, pg_stat_get_xact_tuples_updated('hook_deliveries'::regclass)::int AS updated",
          )
        ).rows[0];
      const before = await counts();
      const claimed = await db.query(claimStatement(16, { perHook: 16, perProject: 16 }, new Map()).toQuery());
      expect(claimed.rows).toHaveLength(16);
      const after = await counts();
      expect({ hot: after.hot - before.hot, updated: after.updated - before.updated }).toEqual({ hot: 16, updated: 16 });
    } finally {
      await db.query("ROLLBACK");
      await db.query("DELETE FROM hook_deliveries WHERE hook_id = $1", [hook]);
      await db.query("DELETE FROM hooks WHERE project_id = $1 AND id = $2", [PROJECT, hook]);
    }
  });
});
