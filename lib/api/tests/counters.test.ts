import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { compactCounters } from "../../projects/counters";
import { createProject, ownerWithProject } from "../../testing/fixtures";
import { apiSuite } from "../../testing/api-suite";

/**
 * The counters (documents_count, data_size, files_size) are kept as appended deltas folded in by
 * a compactor (lib/projects/counters.ts); what clients see must be exact before and after folding.
 */
const t = apiSuite();
const as = () => ({ project: t.owner.project, token: t.owner.token });

async function actualDataSize(project: string): Promise<number> {
  const { rows } = await t.db.query("SELECT coalesce(sum(octet_length(data::text)), 0)::bigint AS n FROM documents WHERE project_id = $1", [project]);
  return Number(rows[0].n);
}

describe("counters", () => {
  it("stay exact across compaction", async () => {
    // Every server process of the suite compacts every second: held off (as a collection delete
    // holds it) until the deltas have been looked at.
    const holder = new pg.Client({ connectionString: inject("databaseUrl") });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock_shared(7042003)");
      await Promise.all(Array.from({ length: 30 }, (_, i) => t.server.request("/api/collections/c1/documents/", { ...as(), json: { i } })));
      await t.server.request("/api/collections/c1/documents/", { ...as(), action: "delete", json: { filter: { i: { $lt: 10 } } } });
      const before = await t.server.request("/api/collections/c1/", as());
      expect(before.body.documents_count).toBe(20);
      const { rows } = await t.db.query("SELECT count(*)::int AS n FROM counter_deltas WHERE project_id = $1", [t.owner.project]);
      expect(rows[0].n).toBeGreaterThan(0);
      expect(await compactCounters()).toBe(0); // held off
    } finally {
      await holder.query("COMMIT");
      await holder.end();
    }

    await compactCounters();
    const after = await t.server.request("/api/collections/c1/", as());
    expect(after.body.documents_count).toBe(20);
    const info = await t.server.request("/api/info/", { project: t.owner.project, session: t.owner.session });
    expect(info.body.status.data_size).toBe(await actualDataSize(t.owner.project));
    const column = await t.db.query("SELECT documents_count FROM collections WHERE project_id = $1 AND id = 'c1'", [t.owner.project]);
    expect(Number(column.rows[0].documents_count)).toBe(20);
  });

  it("X-Action: update writes every match in one statement: data_size exact, one event per document, 402 past the limit with nothing written", async () => {
    const c = "bulk";
    await Promise.all(Array.from({ length: 20 }, (_, i) => t.server.request(`/api/collections/${c}/documents/`, { ...as(), json: { _id: `b${i}`, i } })));
    const updated = await t.server.request(`/api/collections/${c}/documents/`, { ...as(), action: "update", json: { filter: { i: { $gte: 5 } }, operation: { $set: { tag: "x".repeat(100) } } } });
    expect(updated.body).toEqual({ updated: 15 });
    expect((await t.server.request("/api/info/", { project: t.owner.project, session: t.owner.session })).body.status.data_size).toBe(await actualDataSize(t.owner.project));
    const { rows } = await t.db.query("SELECT count(*)::int AS n FROM document_events WHERE project_id = $1 AND collection_id = $2 AND kind = 'updated'", [t.owner.project, c]);
    expect(rows[0].n).toBe(15);

    const limited = await createProject(t.server, t.owner.session);
    const token = (await t.server.request("/api/collections/_tokens/documents/", { project: limited, session: t.owner.session, json: { permission: { allow: { all: true } } } })).body.token;
    for (let i = 0; i < 5; i++) await t.server.request(`/api/collections/${c}/documents/`, { project: limited, token, json: { _id: `l${i}` } });
    const size = await actualDataSize(limited);
    await t.server.request(`/api/user/projects/${limited}/`, { session: t.owner.session, method: "PATCH", json: { settings: { data_size_limit: size + 100 } } });
    const refused = await t.server.request(`/api/collections/${c}/documents/`, { project: limited, token, action: "update", json: { filter: {}, operation: { $set: { big: "y".repeat(50) } } } });
    expect(refused.status).toBe(402);
    expect(await actualDataSize(limited)).toBe(size);
    const docs = await t.server.request(`/api/collections/${c}/documents/`, { project: limited, token });
    expect(docs.body.items.every((d: Record<string, unknown>) => d.big === undefined)).toBe(true);
  });

  it("the outbox is counted: events_size is the bytes of the document copies events hold, less what pruning removes", async () => {
    const { pruneOutbox } = await import("../../outbox/outbox-maintenance");
    const project = await createProject(t.server, t.owner.session);
    const token = (await t.server.request("/api/collections/_tokens/documents/", { project, session: t.owner.session, json: { permission: { allow: { all: true } } } })).body.token;
    const as2 = { project, token };
    await t.server.request("/api/collections/ev/documents/", { ...as2, json: { _id: "a", text: "x".repeat(500) } });
    for (let i = 0; i < 5; i++) await t.server.request("/api/collections/ev/documents/a/", { ...as2, method: "PATCH", json: { i } });
    await t.server.request("/api/collections/ev/documents/", { ...as2, action: "update", json: { filter: {}, operation: { $inc: { i: 1 } } } });
    await t.server.request("/api/collections/ev/documents/a/", { ...as2, method: "DELETE" });
    const actual = async () =>
      Number((await t.db.query("SELECT coalesce(sum(octet_length(coalesce(after, before)::text)), 0) AS n FROM document_events WHERE project_id = $1 AND collection_id <> '_files'", [project])).rows[0].n);
    const counted = async () => Number((await t.db.query("SELECT events_size FROM project_totals WHERE project_id = $1", [project])).rows[0].events_size);
    expect(await actual()).toBeGreaterThan(8 * 500);
    expect(await counted()).toBe(await actual());
    // Past events_ttl (and once the hooks dispatcher has passed them) the events go, and the count with them.
    await t.db.query("UPDATE document_events SET created_at = now() - interval '2 days' WHERE project_id = $1", [project]);
    // The hooks dispatcher (running in the test server) passes every event, hooks or not, and
    // stores where it stands at most once a second.
    await expect
      .poll(async () =>
        (await t.db.query("SELECT bool_and((e.txid, e.id) <= (c.txid, c.event_id)) AS passed FROM document_events e, outbox_cursors c WHERE c.name = 'hooks' AND e.project_id = $1", [project])).rows[0].passed,
        { timeout: 5000 },
      )
      .toBe(true);
    const { runAsBackground } = await import("../../db/pool");
    await runAsBackground(() => pruneOutbox());
    expect(await actual()).toBe(0);
    expect(await counted()).toBe(0);
    await compactCounters();
    expect(await counted()).toBe(0);
  });

  it("a collection deleted with pending deltas and created again counts from zero", async () => {
    await Promise.all(Array.from({ length: 5 }, () => t.server.request("/api/collections/again/documents/", { ...as(), json: { x: 1 } })));
    expect((await t.server.request("/api/collections/again/", { ...as(), method: "DELETE" })).status).toBe(204);
    await t.server.request("/api/collections/again/documents/", { ...as(), json: { x: 2 } });
    expect((await t.server.request("/api/collections/again/", as())).body.documents_count).toBe(1);
    await compactCounters();
    expect((await t.server.request("/api/collections/again/", as())).body.documents_count).toBe(1);
    expect((await t.server.request("/api/info/", { project: t.owner.project, session: t.owner.session })).body.status.data_size).toBe(await actualDataSize(t.owner.project));
  });

  it("a compaction running into a collection delete leaves the collection made again under its id counting exactly", async () => {
    const c = "raced";
    for (let i = 0; i < 3; i++) await t.server.request(`/api/collections/${c}/documents/`, { ...as(), json: { _id: `r${i}` } });
    // Hold one document so the delete stops inside its transaction, holding the collection's row.
    const holder = new pg.Client({ connectionString: inject("databaseUrl") });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM documents WHERE project_id = $1 AND collection_id = $2 AND id = 'r0' FOR UPDATE", [t.owner.project, c]);
      const deleted = t.server.request(`/api/collections/${c}/`, { ...as(), method: "DELETE" });
      for (let i = 0; i < 500; i++) {
        const { rows } = await t.db.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%DELETE FROM documents%'");
        if (rows.length) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      // A compaction now would take the collection's pending deltas and wait for its row; it
      // must stay out instead (it skips its turn while a delete runs).
      const compaction = compactCounters();
      await Promise.race([compaction, new Promise((r) => setTimeout(r, 300))]);
      await holder.query("COMMIT");
      expect((await deleted).status).toBe(204);
      await compaction;
    } finally {
      await holder.end();
    }
    await t.server.request(`/api/collections/${c}/documents/`, { ...as(), json: { _id: "new" } });
    expect((await t.server.request(`/api/collections/${c}/`, as())).body.documents_count).toBe(1);
    await compactCounters();
    expect((await t.server.request(`/api/collections/${c}/`, as())).body.documents_count).toBe(1);
  });

  it("a project deleted with pending deltas and created again starts from zero", async () => {
    const other = await ownerWithProject(t.server);
    await t.server.request("/api/collections/x/documents/", { project: other.project, token: other.token, json: { big: "x".repeat(1000) } });
    expect((await t.server.request(`/api/user/projects/${other.project}/`, { method: "DELETE", session: other.session })).status).toBe(204);
    await createProject(t.server, other.session, other.project);
    const project = await t.server.request(`/api/user/projects/${other.project}/`, { session: other.session });
    expect(project.body.status).toEqual({ files_size: 0, data_size: 0, is_active: true });
    await compactCounters();
    expect((await t.server.request(`/api/user/projects/${other.project}/`, { session: other.session })).body.status.data_size).toBe(0);
  });

  it("a data size limit holds exactly under concurrent writes", async () => {
    const limited = await ownerWithProject(t.server);
    const body = { text: "y".repeat(200) };
    const one = await t.server.request("/api/collections/l/documents/", { project: limited.project, token: limited.token, json: body });
    const size = await actualDataSize(limited.project);
    expect(one.status).toBe(201);
    // Room for exactly four more documents of the same size (ids differ in length by nothing: generated).
    await t.server.request(`/api/user/projects/${limited.project}/`, { method: "PATCH", session: limited.session, json: { settings: { data_size_limit: size * 5 } } });
    const results = await Promise.all(
      Array.from({ length: 12 }, () => t.server.request("/api/collections/l/documents/", { project: limited.project, token: limited.token, json: body })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(4);
    expect(results.filter((r) => r.status === 402).every((r) => r.body.message === "Project data size limit exceeded")).toBe(true);
    expect(await actualDataSize(limited.project)).toBe(size * 5);
  });
});
