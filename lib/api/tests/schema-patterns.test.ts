import { describe, expect, it } from "vitest";
import { matchesConditions } from "../../hooks/hook";
import { apiSuite } from "../../testing/api-suite";

/** Schema `pattern`s come from requests: they run on RE2, so none can stall the server. */
const t = apiSuite();
const as = (extra: Record<string, unknown> = {}) => ({ project: t.owner.project, token: t.owner.token, ...extra });

describe("JSON Schema patterns", () => {
  it("an exponential pattern in a collection schema refuses a hostile value without stalling other requests", async () => {
    const schema = { type: "object", properties: { name: { type: "string", pattern: "^(a+)+$" } } };
    expect((await t.server.request("/api/collections/patterned/", as({ method: "PUT", json: { schema } }))).status).toBe(201);
    const hostile = t.server.request("/api/collections/patterned/documents/", as({ json: { name: `${"a".repeat(100_000)}!` } }));
    const other = await t.server.request("/api/info/", { project: t.owner.project, session: t.owner.session });
    expect(other.status).toBe(200);
    const refused = await hostile;
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].property).toBe("name");
    expect((await t.server.request("/api/collections/patterned/documents/", as({ json: { name: "aaa" } }))).status).toBe(201);
  });

  it("a pattern RE2 cannot run (backreference) is refused when the schema is saved", async () => {
    const schema = { type: "object", properties: { name: { type: "string", pattern: "(a)\\1" } } };
    const saved = await t.server.request("/api/collections/backref/", as({ method: "PUT", json: { schema } }));
    expect(saved.status).toBe(422);
  });

  it("draft 4 formats are checked (422 naming the property), in collection schemas and hook conditions alike", async () => {
    const schema = { type: "object", properties: { email: { type: "string", format: "email" }, site: { type: "string", format: "uri" } } };
    expect((await t.server.request("/api/collections/formatted/", as({ method: "PUT", json: { schema } }))).status).toBe(201);
    const refused = await t.server.request("/api/collections/formatted/documents/", as({ json: { email: "not an address", site: "example.com" } }));
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({
      message: "Validation error",
      errors: [
        { property: "email", message: 'must match format "email"' },
        { property: "site", message: 'must match format "uri"' },
      ],
    });
    const stored = await t.server.request("/api/collections/formatted/documents/", as({ json: { email: "ann@example.com", site: "https://example.com/" } }));
    expect(stored.status, stored.text).toBe(201);
    // A hook's conditions use the same formats: only a document whose email is one matches.
    const conditions = { type: "object", properties: { email: { type: "string", format: "email" } } };
    expect(matchesConditions({ conditions }, { email: "ann@example.com" })).toBe(true);
    expect(matchesConditions({ conditions }, { email: "nope" })).toBe(false);
    // And the same multipleOf: 19.99 is a multiple of 0.01 (a binary remainder said otherwise).
    const cents = { type: "object", properties: { price: { type: "number", multipleOf: 0.01 } } };
    expect(matchesConditions({ conditions: cents }, { price: 19.99 })).toBe(true);
    expect(matchesConditions({ conditions: cents }, { price: 19.995 })).toBe(false);
  });
});
