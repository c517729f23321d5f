import { describe, expect, it } from "vitest";
import { apiSuite } from "../../testing/api-suite";
import { bigCollection } from "../../testing/fixtures";

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
