import { describe, expect, it, vi } from "vitest";
import { apiSuite } from "../../testing/api-suite";
import { bigCollection } from "../../testing/fixtures";
import { sweepOrphanIndexes } from "../../collections/index-sweep";

// A statement timeout far below what building indexes over 200,000 documents takes.
process.env.ARCA_STATEMENT_TIMEOUT_MS = "400";

const t = apiSuite();
const as = (extra: Record<string, unknown> = {}) => ({ project: t.owner.project, token: t.owner.token, ...extra });

describe("building indexes over a big collection", () => {
  it("is not cut off by the API's statement timeout (long work, not a runaway query), which still holds for requests", async () => {
    // Enough documents that building two indexes over them takes a while.
    await bigCollection(t.server, t.db, as());
    const started = performance.now();
    const built = await t.server.request("/api/collections/big/", as({ method: "PATCH", json: { indexes: [{ type: "simple", property: "tag" }, { type: "simple", property: "n" }] } }));
    expect(built.status, built.text).toBe(200);
    // The build did take longer than the timeout: it was exempt, not quick.
    expect(performance.now() - started).toBeGreaterThan(400);
    const valid = await t.db.query(
      "SELECT count(*)::int AS n FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indisvalid AND c.relname IN (SELECT indexname FROM pg_indexes WHERE indexdef LIKE $1)",
      [`%project_id = '${t.owner.project}'::text%collection_id = 'big'::text%`],
    );
    expect(valid.rows[0].n).toBe(4);
    // Requests still have the timeout: an unindexed filter over the 200,000 documents with a
    // regular expression on every one is cut off (503) rather than run to its end.
    const slow = await t.server.request(
      `/api/collections/big/documents/?filter=${encodeURIComponent(JSON.stringify({ $or: Array.from({ length: 40 }, (_, i) => ({ title: { $regex: `^(a|b)*x${i}$` } })) }))}`,
      as(),
    );
    expect(slow.status, slow.text).toBe(503);
  }, 120_000);
});

describe("a collection delete whose index drop outlasts the statement timeout", () => {
  it("still deletes (204), and the index sweep drops the indexes once nothing holds them", async () => {
    expect((await t.server.request("/api/collections/", as({ json: { _id: "slow-drop", indexes: [{ type: "simple", property: "n" }] } }))).status).toBe(201);
    const indexes = async () => (await t.db.query("SELECT indexname FROM pg_indexes WHERE tablename = 'documents' AND indexdef LIKE $1", [`%project_id = '${t.owner.project}'::text%collection_id = 'slow-drop'::text%`])).rows;
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    let logged = "";
    await t.db.query("BEGIN");
    try {
      // A reader the concurrent drop must wait for, longer than the 400 ms timeout.
      await t.db.query("SELECT 1 FROM documents LIMIT 1");
      const deleted = await t.server.request("/api/collections/slow-drop/", as({ method: "DELETE" }));
      expect(deleted.status, deleted.text).toBe(204);
    } finally {
      await t.db.query("COMMIT");
      logged = spy.mock.calls.flat().join(" ");
      spy.mockRestore();
    }
    expect(logged).toContain("the index sweep will");
    expect((await t.server.request("/api/collections/slow-drop/", as())).status).toBe(404);
    expect(await indexes()).not.toEqual([]);
    await sweepOrphanIndexes();
    expect(await indexes()).toEqual([]);
  });
});
