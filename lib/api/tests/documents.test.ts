import { beforeAll, describe, expect, it } from "vitest";
import { createToken, ownerWithProject } from "../../testing/fixtures";
import { apiSuite } from "../../testing/api-suite";
import { multipartBody, rawRequest } from "../../testing/raw-request";

const t = apiSuite();

const docs = (collection: string) => `/api/collections/${collection}/documents/`;
const as = (extra: Record<string, unknown> = {}) => ({ project: t.owner.project, token: t.owner.token, ...extra });

describe("documents: create, read, save, patch, delete", () => {
  it("creates into a missing collection (auto-created), with a generated time-ordered id", async () => {
    const a = await t.server.request(docs("posts"), as({ json: { title: "one", n: 1 } }));
    expect(a.status, a.text).toBe(201);
    expect(a.body._id).toMatch(/^[0-9a-f]{24}$/);
    expect(a.body).toEqual({ _id: a.body._id, title: "one", n: 1 });
    const b = await t.server.request(docs("posts"), as({ json: { title: "two", n: 2 } }));
    expect(b.body._id > a.body._id).toBe(true);
    const collection = await t.server.request("/api/collections/posts/", as());
    expect(collection.status).toBe(200);
    expect(collection.body).toEqual({
      _id: "posts",
      name: "",
      description: "",
      documents_count: 2,
      schema: { type: "object", properties: {}, additionalProperties: true },
      indexes: [],
      is_system: false,
    });
    const read = await t.server.request(`${docs("posts")}${a.body._id}/`, as());
    expect(read.body).toEqual(a.body);
    const noSlash = await t.server.request(`/api/collections/posts/documents/${a.body._id}`, as());
    expect(noSlash.status).toBe(200);
  });

  it("client ids: valid accepted, taken 409, malformed 422", async () => {
    const ok = await t.server.request(docs("ids"), as({ json: { _id: "a.b@c-d_1", x: 1 } }));
    expect(ok.status).toBe(201);
    const taken = await t.server.request(docs("ids"), as({ json: { _id: "a.b@c-d_1" } }));
    expect(taken.status).toBe(409);
    const bad = await t.server.request(docs("ids"), as({ json: { _id: "has space" } }));
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].property).toBe("_id");
    const long = await t.server.request(docs("ids"), as({ json: { _id: "x".repeat(65) } }));
    expect(long.status).toBe(422);
    // Dot-segments could never be addressed by a path (and deleting `..` once deleted the collection).
    for (const id of [".", ".."]) {
      for (const request of [as({ json: { _id: id } }), as({ method: "PUT", json: { _id: id } })]) {
        const res = await t.server.request(docs("ids"), request);
        expect(res.status, `${id}: ${res.text}`).toBe(422);
        expect(res.body.errors[0].property).toBe("_id");
      }
    }
    expect((await t.server.request(docs("ids"), as({ json: { _id: "..a" } }))).status).toBe(201);
    // Numbers JSON cannot hold (1e400 reads as Infinity) are refused, never stored as null.
    const huge = await t.server.request(docs("ids"), as({ body: '{"_id":"huge","n":1e400}', headers: { "content-type": "application/json" } }));
    expect(huge.status).toBe(400);
    expect((await t.server.request(`${docs("ids")}huge/`, as())).status).toBe(404);
    const withPath = await t.server.request(`${docs("ids")}by-path/`, as({ json: { y: 2 } }));
    expect(withPath.status).toBe(201);
    expect(withPath.body).toEqual({ _id: "by-path", y: 2 });
    // An X-Action on one document (or one property) is refused, never taken for a create.
    expect((await t.server.request(`${docs("ids")}verb/`, as({ action: "delete", json: {} }))).status).toBe(403);
    expect((await t.server.request(`${docs("ids")}verb/`, as({ action: "bogus", json: {} }))).status).toBe(400);
    expect((await t.server.request(`${docs("ids")}by-path/p/`, as({ action: "bogus", json: 1 }))).status).toBe(400);
    expect((await t.server.request(`${docs("ids")}verb/`, as())).status).toBe(404);
    const envelope = await t.server.request(docs("ids"), as({ json: { payload: { _id: "env", z: 3 } } }));
    expect(envelope.body).toEqual({ _id: "env", z: 3 });
  });

  it("404 messages", async () => {
    expect((await t.server.request(`${docs("nope")}x/`, as())).body).toEqual({ message: "Collection not found." });
    expect((await t.server.request(docs("nope"), as())).body).toEqual({ message: "Collection not found." });
    // By-id writes other than a create say so too.
    for (const [method, path, json] of [["PATCH", "x/", { a: 1 }], ["DELETE", "x/", undefined], ["DELETE", "x/a/", undefined], ["POST", "x/a/", 1], ["PUT", "x/a/", 1]] as const) {
      const res = await t.server.request(`${docs("nope")}${path}`, as({ method, json }));
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body, `${method} ${path}`).toEqual({ message: "Collection not found." });
    }
    expect((await t.server.request("/api/collections/nope/", as())).status).toBe(404);
    await t.server.request(docs("p404"), as({ json: { _id: "d", a: { b: 1 } } }));
    expect((await t.server.request(`${docs("p404")}gone/`, as({ method: "DELETE" }))).body).toEqual({ message: "Document not found." });
    expect((await t.server.request(`${docs("p404")}gone/`, as({ method: "PATCH", json: { a: 1 } }))).body).toEqual({ message: "Document not found." });
    expect((await t.server.request(`${docs("p404")}missing/`, as())).body).toEqual({ message: "Document not found." });
    expect((await t.server.request(`${docs("p404")}d/a/c/`, as())).body).toEqual({ message: "Document property not found." });
    expect((await t.server.request(`${docs("p404")}d/a/b/`, as())).body).toBe(1);
  });

  it("PUT creates (201) then replaces (200); PATCH replaces top-level keys; DELETE 204 then 404", async () => {
    const put = await t.server.request(`${docs("save")}s1/`, as({ method: "PUT", json: { a: 1, b: { c: 1, d: 2 } } }));
    expect(put.status).toBe(201);
    const again = await t.server.request(`${docs("save")}s1/`, as({ method: "PUT", json: { a: 2 } }));
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ _id: "s1", a: 2 });
    await t.server.request(`${docs("save")}s1/`, as({ method: "PUT", json: { a: 2, b: { c: 1, d: 2 }, keep: true } }));
    const patch = await t.server.request(`${docs("save")}s1/`, as({ method: "PATCH", json: { b: { c: 5 }, a: null, e: [1] } }));
    expect(patch.status).toBe(200);
    // application/json: the named top-level keys are replaced whole (b loses d; a becomes null), others kept.
    expect(patch.body).toEqual({ _id: "s1", a: null, b: { c: 5 }, e: [1], keep: true });
    const merge = await t.server.request(`${docs("save")}s1/`, as({ method: "PATCH", body: JSON.stringify({ b: { d: 6 }, a: null }), headers: { "content-type": "application/merge-patch+json" } }));
    expect(merge.status, merge.text).toBe(200);
    // application/merge-patch+json: RFC 7396, nested merge and null removes.
    expect(merge.body).toEqual({ _id: "s1", b: { c: 5, d: 6 }, e: [1], keep: true });
    expect((await t.server.request(`${docs("missing-col")}x/`, as({ method: "PATCH", json: {} }))).status).toBe(404);
    const del = await t.server.request(`${docs("save")}s1/`, as({ method: "DELETE" }));
    expect(del.status).toBe(204);
    expect((await t.server.request(`${docs("save")}s1/`, as({ method: "DELETE" }))).status).toBe(404);
  });

  it("property paths: GET, PUT sets (201 absent, 200 replaced, answering the value), DELETE unsets", async () => {
    await t.server.request(docs("props"), as({ json: { _id: "p", a: { b: [10, 20] } } }));
    expect((await t.server.request(`${docs("props")}p/a/b/1/`, as())).body).toBe(20);
    const set = await t.server.request(`${docs("props")}p/a/c/`, as({ method: "PUT", json: { deep: true } }));
    expect(set.status, set.text).toBe(201);
    expect(set.body).toEqual({ deep: true });
    const replaced = await t.server.request(`${docs("props")}p/a/b/1/`, as({ method: "PUT", json: 21 }));
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toBe(21);
    const missing = await t.server.request(`${docs("props")}nobody/a/`, as({ method: "PUT", json: 1 }));
    expect(missing.body).toEqual({ message: "Document not found." });
    expect((await t.server.request(`${docs("props")}p/a/b/`, as())).body).toEqual([10, 21]);
    const unset = await t.server.request(`${docs("props")}p/a/b/`, as({ method: "DELETE" }));
    expect(unset.status).toBe(204);
    expect((await t.server.request(`${docs("props")}p/`, as())).body).toEqual({ _id: "p", a: { c: { deep: true } } });
    expect((await t.server.request(`${docs("props")}p/zzz/`, as({ method: "DELETE" }))).status).toBe(404);
  });

  it("a property path segment is percent-decoded once: %2541 names the key %41 (not A), %2F a slash inside a key", async () => {
    await t.server.request(docs("odd-keys"), as({ json: { _id: "k", A: "plain", "%41": "percent", "%": "pct", "a/b": "slash", a: { b: "nested" } } }));
    expect((await t.server.request(`${docs("odd-keys")}k/%2541/`, as())).body).toBe("percent");
    expect((await t.server.request(`${docs("odd-keys")}k/%25/`, as())).body).toBe("pct");
    expect((await t.server.request(`${docs("odd-keys")}k/a%2Fb/`, as())).body).toBe("slash");
    expect((await t.server.request(`${docs("odd-keys")}k/a/b/`, as())).body).toBe("nested");
    const put = await t.server.request(`${docs("odd-keys")}k/%2541/`, as({ method: "PUT", json: "written" }));
    expect(put.status, put.text).toBe(200);
    expect((await t.server.request(`${docs("odd-keys")}k/%2541/`, as({ method: "DELETE" }))).status).toBe(204);
    expect((await t.server.request(`${docs("odd-keys")}k/`, as())).body).toEqual({ _id: "k", A: "plain", "%": "pct", "a/b": "slash", a: { b: "nested" } });
    expect((await t.server.request(`${docs("odd-keys")}k/%E0%A4%A/`, as())).body).toEqual({ message: "Malformed percent-escape in the property path" });

    const schema = { type: "object", properties: { A: { type: "string" }, "%41": { type: "integer" } } };
    expect((await t.server.request("/api/collections/odd-schema/", as({ method: "PUT", json: { schema } }))).status).toBe(201);
    expect((await t.server.request("/api/collections/odd-schema/schema/properties/%2541/", as())).body).toEqual({ type: "integer" });
    expect((await t.server.request("/api/collections/odd-schema/schema/properties/%2541/", as({ method: "DELETE" }))).status).toBe(204);
    expect((await t.server.request("/api/collections/odd-schema/schema/properties/", as())).body).toEqual({ A: { type: "string" } });

    // Line terminators in a key: reached like any other character (the router once missed them).
    await t.server.request(docs("odd-keys"), as({ json: { _id: "nl", "a\nb": 1, "a\rb": 2, "a\u2028b": 3, "a\u2029b": 4 } }));
    for (const [encoded, value] of [["a%0Ab", 1], ["a%0Db", 2], ["a%E2%80%A8b", 3], ["a%E2%80%A9b", 4]] as const)
      expect((await t.server.request(`${docs("odd-keys")}nl/${encoded}/`, as())).body, encoded).toBe(value);
    expect((await t.server.request(`${docs("odd-keys")}nl/a%0Ab/`, as({ method: "DELETE" }))).status).toBe(204);
    expect((await t.server.request(`${docs("odd-keys")}nl/a%0Ab/`, as())).body).toEqual({ message: "Document property not found." });
    // A document id cannot hold one (CONTRACT §5): a 404 of the document, not of the route.
    expect((await t.server.request(`${docs("odd-keys")}n%0Al/`, as())).body).toEqual({ message: "Document not found." });
  });

  it("a property write nests no deeper than a body may (64 levels): its path counts, never a 500", async () => {
    await t.server.request(docs("deep"), as({ json: { _id: "d", keep: 1 } }));
    const nested = (levels: number): unknown => (levels === 0 ? 1 : { a: nested(levels - 1) });
    const cases: [number, unknown, string][] = [
      [65, 1, "Property path is nested too deeply (at most 64 levels)"],
      [5000, 1, "Property path is nested too deeply (at most 64 levels)"],
      [40, nested(30), "The updated document is nested too deeply (at most 64 levels)"],
    ];
    for (const [levels, value, message] of cases) {
      const path = Array(levels).fill("a").join("/");
      for (const method of ["PUT", "POST", "PATCH"]) {
        const answer = await t.server.request(`${docs("deep")}d/${path}/`, as({ method, json: value }));
        expect(answer.status, `${method} ${levels}`).toBe(method === "PATCH" && levels === 40 ? 404 : 400);
        if (answer.status === 400) expect(answer.body).toEqual({ message });
      }
    }
    const deepest = await t.server.request(`${docs("deep")}d/${Array(64).fill("a").join("/")}/`, as({ method: "PUT", json: 1 }));
    expect(deepest.status, deepest.text).toBe(201);
    const patched = await t.server.request(`${docs("deep")}d/`, as({ method: "PATCH", json: { keep: 2 } }));
    expect(patched.status, patched.text).toBe(200);
  });

  it("property paths: POST creates (201, 409 when present), PATCH changes (shallow or merge patch; 404 when absent)", async () => {
    const p = `${docs("props2")}q/`;
    await t.server.request(docs("props2"), as({ json: { _id: "q", o: { a: 1, n: { x: 1, y: 2 } }, s: "text" } }));
    const created = await t.server.request(`${p}fresh/`, as({ json: [1, 2] }));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual([1, 2]);
    const taken = await t.server.request(`${p}fresh/`, as({ json: 3 }));
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({ message: "Document property already exists." });

    const shallow = await t.server.request(`${p}o/`, as({ method: "PATCH", json: { n: { x: 5 }, b: 2 } }));
    expect(shallow.status, shallow.text).toBe(200);
    expect(shallow.body).toEqual({ a: 1, n: { x: 5 }, b: 2 });
    const merged = await t.server.request(`${p}o/`, as({ method: "PATCH", body: JSON.stringify({ n: { y: 7 }, a: null }), headers: { "content-type": "application/merge-patch+json" } }));
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body).toEqual({ n: { x: 5, y: 7 }, b: 2 });
    const scalar = await t.server.request(`${p}s/`, as({ method: "PATCH", json: { now: "object" } }));
    expect(scalar.body).toEqual({ now: "object" });
    const absent = await t.server.request(`${p}nothing/`, as({ method: "PATCH", json: { a: 1 } }));
    expect(absent.status).toBe(404);
    expect(absent.body).toEqual({ message: "Document property not found." });
    expect((await t.server.request(p, as())).body).toEqual({ _id: "q", o: { n: { x: 5, y: 7 }, b: 2 }, s: { now: "object" }, fresh: [1, 2] });
  });

  it("property paths into an array take indexes only: a name there is 422 and nothing is stored", async () => {
    const p = `${docs("props3")}arr/`;
    await t.server.request(docs("props3"), as({ json: { _id: "arr", tags: ["a", "b"], rows: [{ k: 1 }] } }));
    for (const [path, property] of [["tags/color/", "tags.color"], ["tags/-1/", "tags.-1"], ["tags/1.5/", "tags.1.5"], ["rows/first/k/", "rows.first"]]) {
      const res = await t.server.request(`${p}${path}`, as({ method: "PUT", json: "red" }));
      expect(res.status, `${path} ${res.text}`).toBe(422);
      expect(res.body.errors[0].property).toBe(property);
    }
    expect((await t.server.request(`${p}rows/0/k/`, as({ method: "PUT", json: 2 }))).status).toBe(200);
    expect((await t.server.request(`${p}tags/2/`, as({ method: "PUT", json: "c" }))).status).toBe(201);
    expect((await t.server.request(p, as())).body).toEqual({ _id: "arr", tags: ["a", "b", "c"], rows: [{ k: 2 }] });
  });

  it("property paths through a value that holds no properties (string, number, boolean, null) are 422 and keep it", async () => {
    const p = `${docs("props4")}s/`;
    const doc = { _id: "s", s: "str", n: 5, b: true, z: null, o: { deep: "x" } };
    await t.server.request(docs("props4"), as({ json: doc }));
    for (const method of ["PUT", "POST", "PATCH"])
      for (const [path, property] of [["s/x/", "s"], ["n/x/", "n"], ["b/x/y/", "b"], ["z/x/", "z"], ["o/deep/x/", "o.deep"]]) {
        const res = await t.server.request(`${p}${path}`, as({ method, json: "v" }));
        expect(res.status, `${method} ${path} ${res.text}`).toBe(method === "PATCH" ? 404 : 422);
        if (method !== "PATCH") expect(res.body.errors[0].property).toBe(property);
      }
    expect((await t.server.request(p, as())).body).toEqual(doc);
    // An absent step is made; a present object is walked.
    expect((await t.server.request(`${p}new/x/`, as({ method: "PUT", json: 1 }))).status).toBe(201);
    expect((await t.server.request(`${p}o/more/`, as({ method: "PUT", json: 2 }))).status).toBe(201);
    expect((await t.server.request(p, as())).body).toEqual({ ...doc, new: { x: 1 }, o: { deep: "x", more: 2 } });
  });

  it("fields and fields_exclude with an empty segment are 400, as such a sort key is", async () => {
    for (const query of ["fields=a..b", "fields_exclude=.a", "fields=a.", "sort=a..b"]) {
      const res = await t.server.request(`${docs("proj")}?${query}`, as());
      expect(res.status, query).toBe(400);
    }
  });

  it("fields and fields_exclude on reads", async () => {
    await t.server.request(docs("proj"), as({ json: { _id: "f", a: 1, b: { c: 2, d: 3 } } }));
    expect((await t.server.request(`${docs("proj")}f/?fields=b.c`, as())).body).toEqual({ _id: "f", b: { c: 2 } });
    expect((await t.server.request(`${docs("proj")}f/?fields_exclude=b`, as())).body).toEqual({ _id: "f", a: 1 });
  });
});

describe("lists and queries", () => {
  beforeAll(async () => {
    for (let i = 1; i <= 25; i++)
      await t.server.request(docs("items"), as({ json: { _id: `i${String(i).padStart(2, "0")}`, n: i, even: i % 2 === 0, tags: i % 5 === 0 ? ["five"] : [], nested: { v: i % 3 } } }));
  });

  it("filters on a datetime property compare instants, however the operand spells them", async () => {
    const schema = { type: "object", properties: { when: { type: "datetime" }, log: { type: "array", items: { type: "object", properties: { at: { type: "datetime" } } } } } };
    expect((await t.server.request("/api/collections/dated/", as({ method: "PUT", json: { schema } }))).status).toBe(201);
    await t.server.request(docs("dated"), as({ json: { _id: "a", when: "2024-03-01T10:00:00Z", log: [{ at: "2024-03-01T10:00:00.250Z" }] } }));
    await t.server.request(docs("dated"), as({ json: { _id: "b", when: "2024-03-01T10:00:00.610+00:00", log: [] } }));
    const ids = async (filter: unknown) => {
      const list = await t.server.request(`${docs("dated")}?sort=_id&filter=${encodeURIComponent(JSON.stringify(filter))}`, as());
      expect(list.status, list.text).toBe(200);
      return list.body.items.map((d: { _id: string }) => d._id);
    };
    // Stored as "…10:00:00.000Z" and "…10:00:00.610Z"; as text "…10:00:00Z" sorted after both.
    expect(await ids({ when: { $gte: "2024-03-01T10:00:00Z" } })).toEqual(["a", "b"]);
    expect(await ids({ when: { $gt: "2024-03-01T10:00:00Z" } })).toEqual(["b"]);
    expect(await ids({ when: "2024-03-01T11:00:00+01:00" })).toEqual(["a"]);
    expect(await ids({ when: { $in: ["2024-03-01 10:00:00.61Z"] } })).toEqual(["b"]);
    expect(await ids({ $or: [{ "log.at": { $lt: "2024-03-01T10:00:00.3Z" } }] })).toEqual(["a"]);
    expect(await ids({ log: { $elemMatch: { at: { $lt: "2024-03-01T11:00:00.3+01:00" } } } })).toEqual(["a"]);
    expect(await ids({ when: { $lt: "2024-03-02" } })).toEqual(["a", "b"]);
    // Bulk actions read the filter the same way.
    const updated = await t.server.request(docs("dated"), as({ action: "update", json: { filter: { when: { $gt: "2024-03-01T10:00:00Z" } }, operation: { $set: { log: [{ at: "2025-01-01T00:00:00Z" }] } } } }));
    expect(updated.body).toEqual({ updated: 1 });
    const deleted = await t.server.request(docs("dated"), as({ action: "delete", json: { filter: { when: "2024-03-01T11:00:00+01:00" } } }));
    expect(deleted.body).toEqual({ deleted: 1 });
    expect(await ids({})).toEqual(["b"]);
  });

  it("pages with total, pages, links", async () => {
    const page = await t.server.request(`${docs("items")}?page=2&per_page=10`, as());
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(25);
    expect(page.body.pages).toBe(3);
    expect(page.body.page).toBe(2);
    expect(page.body.per_page).toBe(10);
    expect(page.body.items.map((d: any) => d._id)).toEqual(Array.from({ length: 10 }, (_, i) => `i${String(i + 11)}`));
    expect(page.body.links.next).toContain("page=3");
    expect(page.body.links.prev).toContain("page=1");
    // More than 1000 is served at 1000 (the answer and its links say so); not a number is 400.
    const capped = await t.server.request(`${docs("items")}?per_page=5000`, as());
    expect(capped.status, capped.text).toBe(200);
    expect(capped.body).toMatchObject({ per_page: 1000, page: 1, pages: 1, total: 25 });
    expect(capped.body.items).toHaveLength(25);
    expect(capped.body.links.first).toContain("per_page=1000");
    expect((await t.server.request(`${docs("items")}?per_page=many`, as())).status).toBe(400);
  });

  it("filters (GET param and X-Action: find), sort, projection", async () => {
    const filter = encodeURIComponent(JSON.stringify({ even: true, n: { $gt: 10 } }));
    const got = await t.server.request(`${docs("items")}?filter=${filter}&sort=-n&fields=n`, as());
    expect(got.body.total).toBe(7);
    expect(got.body.items[0]).toEqual({ _id: "i24", n: 24 });
    const found = await t.server.request(`${docs("items")}?sort=nested.v,-n&per_page=3`, as({ action: "find", json: { filter: { tags: "five" } } }));
    expect(found.body.total).toBe(5);
    expect(found.body.items.map((d: any) => d._id)).toEqual(["i15", "i25", "i10"]);
    expect((await t.server.request(`${docs("items")}?filter=${encodeURIComponent('{"n":{"$bogus":1}}')}`, as())).status).toBe(400);
    expect((await t.server.request(`${docs("items")}?filter=notjson`, as())).status).toBe(400);
    const beyond = await t.server.request(`${docs("items")}?page=9&per_page=10&filter=${filter}`, as());
    expect(beyond.body.items).toEqual([]);
    expect(beyond.body.total).toBe(7);
  });

  it("page links carry the query answered, a find body's filter and text included", async () => {
    const find = await t.server.request(`${docs("items")}?per_page=2`, as({ action: "find", json: { filter: { n: { $gte: 20 } } } }));
    expect(find.body.total).toBe(6);
    const next = new URL(find.body.links.next);
    expect(JSON.parse(next.searchParams.get("filter")!)).toEqual({ n: { $gte: 20 } });
    const followed = await t.server.request(`${next.pathname}${next.search}`, as());
    expect(followed.body.total).toBe(6);
    expect(followed.body.page).toBe(2);
    expect(followed.body.items.map((d: { _id: string }) => d._id)).toEqual(["i22", "i23"]);
    // And the body's sort and projection: following the links pages the same list.
    const sorted = await t.server.request(`${docs("items")}?per_page=2`, as({ action: "find", json: { filter: { n: { $gte: 20 } }, sort: "-n", fields: "n" } }));
    const second = new URL(sorted.body.links.next);
    const page2 = await t.server.request(`${second.pathname}${second.search}`, as());
    expect(page2.body.items).toEqual([{ _id: "i23", n: 23 }, { _id: "i22", n: 22 }]);
  });

  it("page links follow X-Forwarded-Proto behind a trusted proxy (ARCA_TRUST_PROXY=true), and only then", async () => {
    const linkOf = async (headers: Record<string, string>) => new URL((await t.server.request(`${docs("items")}?per_page=2`, as({ headers }))).body.links.next).protocol;
    expect(await linkOf({ "x-forwarded-proto": "https" })).toBe("http:");
    process.env.ARCA_TRUST_PROXY = "true";
    try {
      expect(await linkOf({ "x-forwarded-proto": "https" })).toBe("https:");
      expect(await linkOf({ "x-forwarded-proto": "HTTPS, http" })).toBe("https:");
      expect(await linkOf({ "x-forwarded-proto": "javascript" })).toBe("http:");
      expect(await linkOf({})).toBe("http:");
    } finally {
      delete process.env.ARCA_TRUST_PROXY;
    }
  });

  it("text search needs a text index (400)", async () => {
    expect((await t.server.request(`${docs("items")}?text=hello`, as())).status).toBe(400);
  });
});

describe("update, upsert, delete by criteria", () => {
  it("update applies operators to every match", async () => {
    for (const i of [1, 2, 3]) await t.server.request(docs("upd"), as({ json: { _id: `u${i}`, n: i, list: [1] } }));
    const updated = await t.server.request(docs("upd"), as({ action: "update", json: { filter: { n: { $gte: 2 } }, operation: { $inc: { n: 10 }, $push: { list: 2 }, $set: { "a.b": true } } } }));
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toEqual({ updated: 2 });
    expect((await t.server.request(`${docs("upd")}u3/`, as())).body).toEqual({ _id: "u3", n: 13, list: [1, 2], a: { b: true } });
    expect((await t.server.request(`${docs("upd")}u1/`, as())).body).toEqual({ _id: "u1", n: 1, list: [1] });
    const bad = await t.server.request(docs("upd"), as({ action: "update", json: { filter: {}, operation: { $bogus: { a: 1 } } } }));
    expect(bad.status).toBe(400);
  });

  it("an array index past 100,000 pads nothing, by update operator (400) or property path (422)", async () => {
    expect((await t.server.request(docs("pad"), as({ json: { _id: "p", x: [1] } }))).status).toBe(201);
    const update = await t.server.request(docs("pad"), as({ action: "update", json: { filter: {}, operation: { $set: { "x.4000000": 1 } } } }));
    expect(update.status).toBe(400);
    expect(update.body.message).toBe("Cannot pad the array at x.4000000: an array index is at most 100000");
    const put = await t.server.request(`${docs("pad")}p/x/100001/`, as({ method: "PUT", json: 1 }));
    expect(put.status).toBe(422);
    expect(put.body.errors).toEqual([{ property: "x.100001", message: "an array index is at most 100000" }]);
    expect((await t.server.request(`${docs("pad")}p/`, as())).body).toEqual({ _id: "p", x: [1] });
    // Elements past the cap that exist stay writable, by either route.
    expect((await t.server.request(docs("pad"), as({ json: { _id: "big", x: Array.from({ length: 100_003 }, () => 0) } }))).status).toBe(201);
    expect((await t.server.request(`${docs("pad")}big/x/100002/`, as({ method: "PUT", json: 7 }))).status).toBe(200);
    const inc = await t.server.request(docs("pad"), as({ action: "update", json: { filter: { _id: "big" }, operation: { $inc: { "x.100001": 1 } } } }));
    expect(inc.body).toEqual({ updated: 1 });
    expect(((await t.server.request(`${docs("pad")}big/`, as())).body.x as number[]).slice(-3)).toEqual([0, 1, 7]);
  });

  it("a filter reads: update and delete by criteria with a filter need read too (the count would read what the principal may not)", async () => {
    for (const i of [1, 2]) await t.server.request(docs("blind"), as({ json: { _id: `b${i}`, secret: `s${i}` } }));
    const blind = await createToken(t.server, t.owner.session, t.owner.project, { allow: { update: ["blind"], delete: ["blind"] } });
    const asBlind = (extra: Record<string, unknown>) => ({ project: t.owner.project, token: blind, ...extra });
    const probe = await t.server.request(docs("blind"), asBlind({ action: "update", json: { filter: { secret: { $regex: "^s1" } }, operation: { $unset: { none: "" } } } }));
    expect(probe.status).toBe(403);
    expect(probe.body.message).toBe("Not allowed to read in collection blind");
    expect((await t.server.request(docs("blind"), asBlind({ action: "delete", json: { filter: { secret: "s2" } } }))).status).toBe(403);
    // Without a filter the action takes every document, as it says.
    expect((await t.server.request(docs("blind"), asBlind({ action: "update", json: { operation: { $set: { seen: true } } } }))).body).toEqual({ updated: 2 });
  });

  it("a filter reads on system collections too: _files, _tokens, _users, _notification", async () => {
    const deleteOnly = await createToken(t.server, t.owner.session, t.owner.project, { allow: { delete: ["_files", "_tokens", "_users", "_notification"] } });
    const blind = (extra: Record<string, unknown>) => ({ project: t.owner.project, token: deleteOnly, ...extra });
    for (const collection of ["_files", "_tokens", "_users", "_notification"]) {
      const probe = await t.server.request(docs(collection), blind({ action: "delete", json: { filter: { _id: "no-such-record" } } }));
      expect(probe.status, `${collection} ${probe.text}`).toBe(403);
    }
    expect((await t.server.request(docs("_files"), blind({ action: "delete", json: { filter: { name: "x" } } }))).body).toEqual({ message: "Not allowed to read in collection _files" });
  });

  it("upsert inserts once when nothing matches", async () => {
    const first = await t.server.request(docs("ups"), as({ action: "upsert", json: { filter: { key: "k" }, operation: { $inc: { hits: 1 } } } }));
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ upsertedId: expect.stringMatching(/^[0-9a-f]{24}$/) });
    const second = await t.server.request(docs("ups"), as({ action: "upsert", json: { filter: { key: "k" }, operation: { $inc: { hits: 1 } } } }));
    expect(second.body).toEqual({ updated: 1 });
    const list = await t.server.request(docs("ups"), as());
    expect(list.body.items).toEqual([{ _id: first.body.upsertedId, key: "k", hits: 2 }]);
    const named = await t.server.request(docs("ups"), as({ action: "upsert", json: { filter: { _id: "chosen" }, operation: { $set: { v: 1 } } } }));
    expect(named.body).toEqual({ upsertedId: "chosen" });
    // Equalities inside a top-level $and seed the new document too.
    const anded = await t.server.request(docs("ups"), as({ action: "upsert", json: { filter: { "o.deep": "v", $and: [{ q: 1 }, { r: { $eq: 2 } }, { s: { $gt: 1 } }] }, operation: { $set: { x: 1 } } } }));
    expect((await t.server.request(`${docs("ups")}${anded.body.upsertedId}/`, as())).body).toEqual({ _id: anded.body.upsertedId, o: { deep: "v" }, q: 1, r: 2, x: 1 });
    // `$eq` beside other operators is an equality too, as in MongoDB.
    const ranged = await t.server.request(docs("ups"), as({ action: "upsert", json: { filter: { m: { $eq: 2, $gt: 1 } }, operation: { $set: { y: 1 } } } }));
    expect((await t.server.request(`${docs("ups")}${ranged.body.upsertedId}/`, as())).body).toEqual({ _id: ranged.body.upsertedId, m: 2, y: 1 });
  });

  it("upsert refuses a filter that matches one path twice (the document it built would not match it): 400, nothing inserted", async () => {
    for (const filter of [{ a: 2, "a.b": 3 }, { $and: [{ k: 2 }, { k: 3 }] }, { k: 1, $and: [{ "k.z": 1 }] }]) {
      const res = await t.server.request(docs("twice"), as({ action: "upsert", json: { filter, operation: { $set: { x: 1 } } } }));
      expect(res.status, JSON.stringify(filter)).toBe(400);
      expect(res.body.message).toMatch(/^Cannot build the document to upsert: the filter matches the path .* twice$/);
    }
    expect((await t.server.request(docs("twice"), as())).status).toBe(404);
  });

  it("concurrent upserts of one _id: one inserts, the others update it (no 409), every $inc counted", async () => {
    await t.server.request(docs("ups2"), as({ json: { _id: "seed" } }));
    const results = await Promise.all(
      Array.from({ length: 10 }, () => t.server.request(docs("ups2"), as({ action: "upsert", json: { filter: { _id: "hot" }, operation: { $inc: { hits: 1 } } } }))),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    expect(results.filter((r) => "upsertedId" in r.body).map((r) => r.body)).toEqual([{ upsertedId: "hot" }]);
    expect(results.filter((r) => "updated" in r.body).map((r) => r.body.updated)).toEqual(Array(9).fill(1));
    expect((await t.server.request(`${docs("ups2")}hot/`, as())).body).toEqual({ _id: "hot", hits: 10 });
    // A filter on no unique key: they take turns, so one document is made, not one per request.
    const plain = await Promise.all(
      Array.from({ length: 10 }, () => t.server.request(docs("ups2"), as({ action: "upsert", json: { filter: { k: "shared" }, operation: { $inc: { n: 1 } } } }))),
    );
    expect(plain.filter((r) => "upsertedId" in r.body)).toHaveLength(1);
    expect(plain.filter((r) => "updated" in r.body).map((r) => r.body.updated)).toEqual(Array(9).fill(1));
    const shared = await t.server.request(`${docs("ups2")}?filter=${encodeURIComponent('{"k":"shared"}')}`, as());
    expect(shared.body.items.map((d: any) => d.n)).toEqual([10]);
    // A collision with another document than the filter's stays a 409.
    await t.server.request(`/api/collections/ups2/`, as({ method: "PATCH", json: { indexes: [{ type: "simple", property: "u", unique: true }] } }));
    await t.server.request(docs("ups2"), as({ json: { _id: "taken", u: 1 } }));
    const clash = await t.server.request(docs("ups2"), as({ action: "upsert", json: { filter: { _id: "other" }, operation: { $set: { u: 1 } } } }));
    expect(clash.status, clash.text).toBe(409);
  });

  it("delete by criteria, with and without a filter, envelope optional", async () => {
    for (const i of [1, 2, 3, 4]) await t.server.request(docs("del"), as({ json: { _id: `d${i}`, n: i } }));
    const some = await t.server.request(docs("del"), as({ action: "Delete", json: { payload: { filter: { _id: { $in: ["d1", "d2", "nope"] } } } } }));
    expect(some.body).toEqual({ deleted: 2 });
    expect((await t.server.request("/api/collections/del/", as())).body.documents_count).toBe(2);
    // A filter in the URL is the filter (it is never taken for "no filter", which deletes all).
    const byUrl = await t.server.request(`${docs("del")}?filter=${encodeURIComponent('{"n":3}')}`, as({ action: "delete", json: {} }));
    expect(byUrl.body).toEqual({ deleted: 1 });
    const all = await t.server.request(docs("del"), as({ action: "delete", json: {} }));
    expect(all.body).toEqual({ deleted: 1 });
    expect((await t.server.request("/api/collections/del/", as())).body.documents_count).toBe(0);
    expect((await t.server.request(docs("never"), as({ action: "delete", json: {} }))).status).toBe(404);
  });

  it("criteria an action does not take are 400, never read as no filter: bare criteria, unknown keys, text", async () => {
    for (const i of [1, 2, 3]) await t.server.request(docs("kept"), as({ json: { _id: `k${i}`, n: i, body: "quick brown fox" } }));
    const refused = [
      { action: "delete", json: { _id: { $in: ["k1"] } }, message: '"_id" is not taken here: the body holds "filter" (criteria go under "filter")' },
      { action: "delete", json: { filters: { n: 1 } }, message: '"filters" is not taken here: the body holds "filter" (criteria go under "filter")' },
      { action: "delete", json: { payload: { filter: { n: 1 }, bogus: 1 } }, message: '"bogus" is not taken here: the body holds "filter" (criteria go under "filter")' },
      { action: "update", json: { filter: { n: 1 }, operation: { $set: { x: 1 } }, bogus: 1 }, message: '"bogus" is not taken here: the body holds "filter" and "operation" (criteria go under "filter")' },
      { action: "delete", json: { text: "fox" }, message: "text selects documents for X-Action: find only; select with filter here" },
      { action: "upsert", json: { text: "fox", operation: { $set: { x: 1 } } }, message: "text selects documents for X-Action: find only; select with filter here" },
    ];
    for (const { action, json, message } of refused) {
      const answer = await t.server.request(docs("kept"), as({ action, json }));
      expect(answer.status, JSON.stringify(json)).toBe(400);
      expect(answer.body).toEqual({ message });
    }
    const byUrlText = await t.server.request(`${docs("kept")}?text=fox`, as({ action: "update", json: { operation: { $set: { x: 1 } } } }));
    expect(byUrlText.status).toBe(400);
    const filesByText = await t.server.request("/api/collections/_files/documents/", as({ action: "delete", json: { text: "nothing" } }));
    expect(filesByText.status).toBe(400);
    // A text that is not a string is not "no text" either.
    for (const text of [{ $search: "fox" }, ["fox"], 42]) expect((await t.server.request(docs("kept"), as({ action: "find", json: { text } }))).body).toEqual({ message: "text must be a string" });
    const listed = await t.server.request(docs("kept"), as());
    expect(listed.body.items).toEqual([1, 2, 3].map((n) => ({ _id: `k${n}`, n, body: "quick brown fox" })));
  });
});

describe("counters and the outbox", () => {
  it("concurrent PUTs of one absent document: one 201, the others 200 (a save never answers 409)", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => t.server.request(`${docs("racing")}same/`, as({ method: "PUT", json: { i } }))));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(19);
    expect((await t.server.request("/api/collections/racing/", as())).body.documents_count).toBe(1);
  });

  it("documents POSTed while their collection is deleted: never a 500", async () => {
    for (let round = 0; round < 5; round++) {
      const c = `churn${round}`;
      await t.server.request(docs(c), as({ json: { seed: 1 } }));
      const answers = await Promise.all([
        ...Array.from({ length: 10 }, (_, i) => t.server.request(docs(c), as({ json: { i } }))),
        t.server.request(`/api/collections/${c}/`, as({ method: "DELETE" })),
      ]);
      for (const answer of answers) expect(answer.status, answer.text).toBeLessThan(500);
    }
  });

  it("a collection delete under creates and saves in a project with a size limit: 204, no deadlock (503), counters exact", async () => {
    const limited = await ownerWithProject(t.server);
    const patched = await t.server.request(`/api/user/projects/${limited.project}/`, { method: "PATCH", session: limited.session, json: { settings: { data_size_limit: 10_000_000, files_size_limit: 10_000_000 } } });
    expect(patched.status, patched.text).toBe(200);
    const mine = { project: limited.project, token: limited.token };
    for (let round = 0; round < 3; round++) {
      const c = `limited${round}`;
      await Promise.all(Array.from({ length: 20 }, (_, i) => t.server.request(docs(c), { ...mine, json: { _id: `pre${i}`, x: "y".repeat(i * 7) } })));
      let stop = false;
      const writer = async (w: number) => {
        for (let i = w; !stop; i += 8) {
          const answer =
            i % 2 ? await t.server.request(docs(c), { ...mine, json: { z: i } }) : await t.server.request(`${docs(c)}pre${i % 20}/`, { ...mine, method: "PUT", json: { r: "r".repeat(30 + i) } });
          expect(answer.status, answer.text).toBeLessThan(500);
        }
      };
      const writers = Array.from({ length: 8 }, (_, w) => writer(w));
      await new Promise((resolve) => setTimeout(resolve, 150));
      const deleted = await t.server.request(`/api/collections/${c}/`, { ...mine, method: "DELETE" });
      stop = true;
      await Promise.all(writers);
      expect(deleted.status, deleted.text).toBe(204);
    }
    const { rows } = await t.db.query(
      "SELECT p.data_size::bigint AS size, (SELECT coalesce(sum(octet_length(data::text)), 0) FROM documents WHERE project_id = p.project_id)::bigint AS actual FROM project_totals p WHERE project_id = $1",
      [limited.project],
    );
    expect(Number(rows[0].size)).toBe(Number(rows[0].actual));
  });

  it("documents_count stays exact under 50 concurrent creates", async () => {
    await Promise.all(Array.from({ length: 50 }, (_, i) => t.server.request(docs("race"), as({ json: { i } }))));
    expect((await t.server.request("/api/collections/race/", as())).body.documents_count).toBe(50);
    const { rows } = await t.db.query("SELECT count(*)::int AS n FROM documents WHERE project_id = $1 AND collection_id = 'race'", [t.owner.project]);
    expect(rows[0].n).toBe(50);
  });

  it("data_size equals the sum of the documents' JSON text", async () => {
    const { rows } = await t.db.query(
      "SELECT p.data_size::bigint AS size, (SELECT coalesce(sum(octet_length(data::text)), 0) FROM documents WHERE project_id = p.project_id)::bigint AS actual FROM project_totals p WHERE project_id = $1",
      [t.owner.project],
    );
    expect(Number(rows[0].size)).toBe(Number(rows[0].actual));
    const info = await t.server.request("/api/info/", { project: t.owner.project, session: t.owner.session });
    expect(info.body.status.data_size).toBe(Number(rows[0].actual));
  });

  it("writes an event per write, with one copy of the document (as stored, or as it was when deleted)", async () => {
    const c = "events";
    await t.server.request(docs(c), as({ json: { _id: "e", v: 1 } }));
    await t.server.request(`${docs(c)}e/`, as({ method: "PUT", json: { v: 2 } }));
    await t.server.request(`${docs(c)}e/`, as({ method: "PATCH", json: { w: 1 } }));
    await t.server.request(docs(c), as({ action: "update", json: { filter: { _id: "e" }, operation: { $inc: { v: 1 } } } }));
    await t.server.request(`${docs(c)}e/`, as({ method: "DELETE" }));
    await t.server.request(docs(c), as({ action: "upsert", json: { filter: { _id: "u" }, operation: { $set: { x: 1 } } } }));
    await t.server.request(docs(c), as({ action: "delete", json: {} }));
    const { rows } = await t.db.query("SELECT document_id, kind, before, after FROM document_events WHERE project_id = $1 AND collection_id = $2 ORDER BY id", [t.owner.project, c]);
    expect(rows).toEqual([
      { document_id: "e", kind: "created", before: null, after: { _id: "e", v: 1 } },
      { document_id: "e", kind: "updated", before: null, after: { _id: "e", v: 2 } },
      { document_id: "e", kind: "updated", before: null, after: { _id: "e", v: 2, w: 1 } },
      { document_id: "e", kind: "updated", before: null, after: { _id: "e", v: 3, w: 1 } },
      { document_id: "e", kind: "deleted", before: { _id: "e", v: 3, w: 1 }, after: null },
      { document_id: "u", kind: "created", before: null, after: { _id: "u", x: 1 } },
      { document_id: "u", kind: "deleted", before: { _id: "u", x: 1 }, after: null },
    ]);
  });

  it("402 past settings.data_size_limit", async () => {
    const limited = await t.server.request(`/api/user/projects/${t.owner.project}/`, { session: t.owner.session, method: "PATCH", json: { settings: { data_size_limit: 1 } } });
    expect(limited.status, limited.text).toBe(200);
    const refused = await t.server.request(docs("limited"), as({ json: { big: "x".repeat(100) } }));
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ message: "Project data size limit exceeded" });
    await t.server.request(`/api/user/projects/${t.owner.project}/`, { session: t.owner.session, method: "PATCH", json: { settings: { data_size_limit: 0 } } });
  });
});

describe("multipart bodies of JSON literals", () => {
  const form = (parts: [string, string][]) => {
    const data = new FormData();
    for (const [name, value] of parts) data.append(name, value);
    return data;
  };

  it("a value part in a charset the server does not read is 400 naming it, on any route, and the server lives on", async () => {
    for (const charset of ["utf-16", "windows-1251", "x-bogus"]) {
      const { body, contentType } = multipartBody([{ name: "email", type: `text/plain; charset=${charset}`, value: '"a@example.com"' }]);
      // Sign-up reads multipart too, before any credentials.
      for (const [path, headers] of [["/api/user/", {}], [docs("charsets"), { "x-project": t.owner.project, authorization: `Token ${t.owner.token}` }]] as const) {
        const answer = await rawRequest(t.server.port, path, { method: "POST", body, headers: { ...headers, "content-type": contentType } });
        expect(answer.status, `${charset} ${path}`).toBe(400);
        expect(answer.body).toEqual({ message: "Part email declares a charset this server does not read: send it as UTF-8" });
      }
    }
    // Latin-1, which busboy reads, is taken.
    const { body, contentType } = multipartBody([{ name: "title", type: "text/plain; charset=iso-8859-1", value: '"Hi"' }]);
    const taken = await rawRequest(t.server.port, docs("charsets"), { method: "POST", body, headers: { "x-project": t.owner.project, authorization: `Token ${t.owner.token}`, "content-type": contentType } });
    expect(taken.status, JSON.stringify(taken.body)).toBe(201);
    expect((await t.server.request("/api/health/")).status).toBe(200);
  });

  it("a part busboy cannot read (no or a malformed Content-Disposition, filename* in an unknown charset) is 400, never dropped", async () => {
    const headers = { "x-project": t.owner.project, authorization: `Token ${t.owner.token}`, "content-type": "multipart/form-data; boundary=XB" };
    const bodies = [
      `--XB\r\nContent-Disposition: form-data; name="_id"\r\n\r\n"u1"\r\n--XB\r\nContent-Disposition: form-data; name="photo"; filename*=x-bogus''a.txt\r\n\r\nhello\r\n--XB--\r\n`,
      `--XB\r\nContent-Disposition: form-data; name="_id"\r\n\r\n"u2"\r\n--XB\r\nContent-Disposition: form-data; name*=x-bogus''title\r\n\r\n"t"\r\n--XB--\r\n`,
      `--XB\r\nContent-Disposition: form-data; name="_id"\r\n\r\n"u3"\r\n--XB\r\nContent-Type: text/plain\r\n\r\n"t"\r\n--XB--\r\n`,
    ];
    for (const body of bodies) {
      const answer = await rawRequest(t.server.port, docs("unread"), { method: "POST", body: Buffer.from(body), headers });
      expect(answer.status, body).toBe(400);
      expect(answer.body.message).toMatch(/^A part of the multipart body could not be read/);
    }
    expect((await t.server.request(docs("unread"), as())).status).toBe(404);
    // A preamble and an epilogue are no parts; a file part in UTF-8 filename* is taken.
    const fine = `preamble\r\n--XB\r\nContent-Disposition: form-data; name="_id"\r\n\r\n"u4"\r\n--XB\r\nContent-Disposition: form-data; name="f"; filename*=UTF-8''%E2%82%AC.txt\r\n\r\nhello\r\n--XB--\r\nepilogue`;
    const taken = await rawRequest(t.server.port, docs("unread"), { method: "POST", body: Buffer.from(fine), headers });
    expect(taken.status, JSON.stringify(taken.body)).toBe(201);
    expect(taken.body.f.name).toBe("€.txt");
  });

  it("parses literals and dotted names", async () => {
    const created = await t.server.request(docs("multi"), as({ body: form([["_id", '"m1"'], ["title", '"Hi"'], ["n", "42"], ["list", "[1,2]"], ["a.b", "true"], ["a.c", '{"d":null}']]) }));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({ _id: "m1", title: "Hi", n: 42, list: [1, 2], a: { b: true, c: { d: null } } });
  });

  it("400 for a part that is not JSON (naming it) and for a repeated name", async () => {
    const bad = await t.server.request(docs("multi"), as({ body: form([["title", "Hi"]]) }));
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("title");
    const repeated = await t.server.request(docs("multi"), as({ body: form([["n", "1"], ["n", "2"]]) }));
    expect(repeated.status).toBe(400);
    expect(repeated.body.message).toContain("n");
    // A value part and a file part of one name, in either order: two values for one property.
    for (const fileFirst of [false, true]) {
      const data = new FormData();
      if (!fileFirst) data.append("pic", '"text"');
      data.append("pic", new Blob(["bytes"], { type: "text/plain" }), "pic.txt");
      if (fileFirst) data.append("pic", '"text"');
      data.append("_id", '"both-kinds"');
      const both = await t.server.request(docs("multi"), as({ body: data }));
      expect(both.status, both.text).toBe(400);
      expect(both.body.message).toBe("Part pic is repeated: a file part and a value part have that name");
    }
    // However the property is spelled, or a value inside the file's property.
    for (const [valueName, fileName] of [["photo", "photo[0]"], ["meta[avatar]", "meta.avatar"], ["photo.name", "photo"], ["photo[0]", "photo"]]) {
      for (const fileFirst of [false, true]) {
        const data = new FormData();
        data.append("_id", '"both-kinds"');
        if (!fileFirst) data.append(valueName, '"text"');
        data.append(fileName, new Blob(["bytes"], { type: "text/plain" }), "pic.txt");
        if (fileFirst) data.append(valueName, '"text"');
        const both = await t.server.request(docs("multi"), as({ body: data }));
        expect(both.status, `${valueName} + ${fileName}: ${both.text}`).toBe(400);
        expect(both.body.message).toBe(`Parts ${fileName} (a file) and ${valueName} (a value) name the same property`);
      }
    }
    // A value object beside a file inside it is one property each: taken.
    const beside = new FormData();
    beside.append("_id", '"beside"');
    beside.append("meta", '{"title":"t"}');
    beside.append("meta.avatar", new Blob(["bytes"], { type: "text/plain" }), "a.txt");
    const merged = await t.server.request(docs("multi"), as({ body: beside }));
    expect(merged.status, merged.text).toBe(201);
    expect(merged.body.meta).toMatchObject({ title: "t", avatar: { name: "a.txt" } });
    // A file under a value that is no object, or in a key the value object already has: the
    // value would be lost (it was, silently).
    for (const [valueName, value, fileName] of [["meta", '"a string"', "meta.avatar"], ["meta", '{"avatar":5}', "meta.avatar"], ["rows[0]", "7", "rows[0].scan"]]) {
      for (const fileFirst of [false, true]) {
        const data = new FormData();
        data.append("_id", '"lost-value"');
        if (!fileFirst) data.append(valueName, value);
        data.append(fileName, new Blob(["bytes"], { type: "text/plain" }), "a.txt");
        if (fileFirst) data.append(valueName, value);
        const refused = await t.server.request(docs("multi"), as({ body: data }));
        expect(refused.status, `${valueName}=${value} + ${fileName}: ${refused.text}`).toBe(400);
        expect(refused.body.message).toMatch(/conflicts with another part|name the same property/);
      }
    }
    expect((await t.server.request(`${docs("multi")}both-kinds/`, as({}))).status).toBe(404);
    expect((await t.server.request(`${docs("multi")}lost-value/`, as({}))).status).toBe(404);
  });

  it("a file part may sit inside an array element (`rows[0].scan`), beside value parts of that element", async () => {
    const data = new FormData();
    data.append("_id", '"rows"');
    data.append("rows[0].label", '"first"');
    data.append("rows[0].scan", new Blob(["one"], { type: "text/plain" }), "one.txt");
    data.append("rows[1][scan]", new Blob(["two"], { type: "text/plain" }), "two.txt");
    const created = await t.server.request(docs("multi"), as({ body: data }));
    expect(created.status, created.text).toBe(201);
    expect(created.body.rows).toEqual([
      { label: "first", scan: expect.objectContaining({ name: "one.txt", size: 3 }) },
      { scan: expect.objectContaining({ name: "two.txt", size: 3 }) },
    ]);
    const viaPath = await t.server.request(`${docs("multi")}rows/rows/1/scan/`, as({}));
    expect(viaPath.status).toBe(200);
    expect(viaPath.body).toEqual(created.body.rows[1].scan);
    // An element no part gives is a hole, as with value parts.
    const gap = new FormData();
    gap.append("rows[1].scan", new Blob(["two"], { type: "text/plain" }), "two.txt");
    const refused = await t.server.request(docs("multi"), as({ body: gap }));
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.message).toBe("Part rows[1].scan: no part gives index 0 of its array");
  });

  it("`name[]` parts (HTML forms, PHP-style clients) are the next element of that array, files and values alike", async () => {
    const data = new FormData();
    data.append("_id", '"appended"');
    data.append("tags[]", '"a"');
    data.append("tags[]", '"b"');
    data.append("scans[]", new Blob(["one"], { type: "text/plain" }), "one.txt");
    data.append("scans[]", new Blob(["two!"], { type: "text/plain" }), "two.txt");
    const schema = { type: "object", properties: { scans: { type: "array", items: { type: "file" } } }, additionalProperties: true };
    expect((await t.server.request("/api/collections/appended/", as({ json: { schema } }))).status).toBe(201);
    const created = await t.server.request(docs("appended"), as({ body: data }));
    expect(created.status, created.text).toBe(201);
    expect(created.body.tags).toEqual(["a", "b"]);
    expect(created.body.scans).toEqual([expect.objectContaining({ name: "one.txt", size: 3 }), expect.objectContaining({ name: "two.txt", size: 4 })]);
    // An index given twice is a repeated part, files as values.
    const twice = new FormData();
    twice.append("scans[0]", new Blob(["one"], { type: "text/plain" }), "one.txt");
    twice.append("scans[0]", new Blob(["two"], { type: "text/plain" }), "two.txt");
    const refused = await t.server.request(docs("appended"), as({ body: twice }));
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe("Part scans[0] is repeated");
    // Appended and explicit indexes of one array, in either order: refused, naming the parts as sent.
    for (const [first, second] of [["tags[1]", "tags[]"], ["tags[]", "tags[0]"], ["tags[]", "tags[0].x"]]) {
      const mixed = new FormData();
      mixed.append(first, '"a"');
      mixed.append(second, '"b"');
      const res = await t.server.request(docs("appended"), as({ body: mixed }));
      expect(res.status, `${first} + ${second}`).toBe(400);
      expect(res.body.message).toBe(`Parts ${first} and ${second} mix appended ([]) and explicit indexes of one array`);
    }
    const notJson = new FormData();
    notJson.append("tags[]", "plain");
    expect((await t.server.request(docs("appended"), as({ body: notJson }))).body.message).toBe("Part tags[] is not a JSON literal");
  });

  it("a file input left empty (filename=\"\", no bytes) is no part: a form's PATCH keeps the file it holds", async () => {
    const first = new FormData();
    first.append("_id", '"form"');
    first.append("title", '"v1"');
    first.append("photo", new Blob(["bytes"], { type: "text/plain" }), "a.txt");
    const created = await t.server.request(docs("multi"), as({ body: first }));
    expect(created.status, created.text).toBe(201);
    const edit = new FormData();
    edit.append("title", '"v2"');
    edit.append("photo", new Blob([], { type: "application/octet-stream" }), "");
    edit.append("meta.scan", new Blob([], { type: "application/octet-stream" }), "");
    const patched = await t.server.request(`${docs("multi")}form/`, as({ method: "PATCH", body: edit }));
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toEqual({ _id: "form", title: "v2", photo: created.body.photo });
    // With bytes, a part without a file name is a file all the same.
    const nameless = new FormData();
    nameless.append("photo", new Blob(["new"], { type: "application/octet-stream" }), "");
    const replaced = await t.server.request(`${docs("multi")}form/`, as({ method: "PATCH", body: nameless }));
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.photo, JSON.stringify(replaced.body.photo)).toMatchObject({ name: "", size: 3 });
  });

  it("a multipart PATCH replaces the top-level key a file part names, as a value part's (it merged into it)", async () => {
    expect((await t.server.request(`${docs("multi")}patched/`, as({ method: "PUT", json: { meta: { a: 1, b: 2 }, keep: true } }))).status).toBe(201);
    const data = new FormData();
    data.append("meta.a", new Blob(["bytes"], { type: "text/plain" }), "a.txt");
    const patched = await t.server.request(`${docs("multi")}patched/`, as({ method: "PATCH", body: data }));
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toEqual({ _id: "patched", meta: { a: expect.objectContaining({ name: "a.txt" }) }, keep: true });
  });

  it("a file part becomes a file record in its property (Files: lib/api/tests/files-documents.test.ts)", async () => {
    const data = new FormData();
    data.append("doc", new Blob(["hello"], { type: "text/plain" }), "hello.txt");
    const response = await t.server.request(docs("multi"), as({ body: data }));
    expect(response.status).toBe(201);
    expect(response.body.doc).toMatchObject({ name: "hello.txt", size: 5, content_type: "text/plain", collection_id: "multi" });
  });
});

describe("permissions and projects", () => {
  it("a token without permission gets 403; a read-only token can read but not write", async () => {
    await t.server.request(docs("guarded"), as({ json: { _id: "g", v: 1 } }));
    const reader = await createToken(t.server, t.owner.session, t.owner.project, { allow: { read: ["guarded"] } });
    const other = await createToken(t.server, t.owner.session, t.owner.project, { allow: { read: ["elsewhere"] } });
    expect((await t.server.request(`${docs("guarded")}g/`, { project: t.owner.project, token: reader })).status).toBe(200);
    expect((await t.server.request(docs("guarded"), { project: t.owner.project, token: reader, json: { v: 2 } })).status).toBe(403);
    expect((await t.server.request(`${docs("guarded")}g/`, { project: t.owner.project, token: other })).status).toBe(403);
    expect((await t.server.request(docs("guarded"), { project: t.owner.project, token: other })).status).toBe(403);
    const listed = await t.server.request("/api/collections/", { project: t.owner.project, token: reader });
    expect(listed.body.items.map((c: any) => c._id)).toEqual(["guarded"]);
  });

  it("a per-document grant holds when the id is in the body (POST and PUT without an id in the path)", async () => {
    await t.server.request(docs("pd"), as({ json: { _id: "p1", v: 1 } }));
    const grant = (id: string) => [{ what: "document", where: "pd", what_id: id }];
    const token = await createToken(t.server, t.owner.session, t.owner.project, { allow: { write: grant("p9"), update: grant("p1") } });
    const asDoc = (extra: Record<string, unknown>) => ({ project: t.owner.project, token, ...extra });
    expect((await t.server.request(docs("pd"), asDoc({ json: { _id: "p9", v: 9 } }))).status).toBe(201);
    expect((await t.server.request(docs("pd"), asDoc({ method: "PUT", json: { _id: "p1", v: 2 } }))).status).toBe(200);
    for (const request of [asDoc({ json: { _id: "other" } }), asDoc({ json: { v: 1 } }), asDoc({ method: "PUT", json: { _id: "other" } }), asDoc({ method: "PUT", json: { v: 1 } })])
      expect((await t.server.request(docs("pd"), request)).status).toBe(403);
    // A multipart body refused after it was read leaves no file behind.
    const before = await t.db.query("SELECT count(*)::int AS n FROM files WHERE project_id = $1", [t.owner.project]);
    const form = new FormData();
    form.set("_id", '"other"');
    form.set("f", new Blob(["words"]), "a.txt");
    expect((await t.server.request(docs("pd"), asDoc({ body: form }))).status).toBe(403);
    expect((await t.db.query("SELECT count(*)::int AS n FROM files WHERE project_id = $1", [t.owner.project])).rows[0].n).toBe(before.rows[0].n);
    expect((await t.server.request(`${docs("pd")}other/`, as())).status).toBe(404);
    // Another collection stays closed before any body is read.
    expect((await t.server.request(docs("elsewhere"), asDoc({ json: { _id: "p9" } }))).status).toBe(403);
  });

  it("another project's data is out of reach", async () => {
    const b = await ownerWithProject(t.server);
    await t.server.request(docs("secret"), { project: b.project, token: b.token, json: { _id: "s", v: 1 } });
    // A's credentials on B's project: 401.
    expect((await t.server.request(`${docs("secret")}s/`, { project: b.project, token: t.owner.token })).status).toBe(401);
    // A's credentials on A's project: B's collection does not exist there.
    expect((await t.server.request(`${docs("secret")}s/`, as())).status).toBe(404);
    expect((await t.server.request(docs("secret"), as())).status).toBe(404);
    expect((await t.server.request("/api/collections/secret/", as())).status).toBe(404);
    const own = await t.server.request(`${docs("secret")}s/`, { host: `${b.project}.localhost`, token: b.token });
    expect(own.status).toBe(200);
    expect((await t.server.request(`${docs("secret")}s/`, { host: `${b.project}.localhost`, token: t.owner.token })).status).toBe(401);
  });
});

describe("system collections in the document routes", () => {
  it("read-only ones list (empty while nothing is recorded) and refuse writes; unknown ones are 404", async () => {
    // `_usage` fills from the periodic flush (whenever it runs); `_debug` only while settings.debug is on.
    const usage = await t.server.request(docs("_usage"), as());
    expect(usage.status).toBe(200);
    expect(Array.isArray(usage.body.items)).toBe(true);
    const debug = await t.server.request(docs("_debug"), as());
    expect(debug.status).toBe(200);
    expect(debug.body.items).toEqual([]);
    expect((await t.server.request(docs("_debug"), as({ json: { a: 1 } }))).status).toBe(403);
    expect((await t.server.request(docs("_nothing"), as())).body).toEqual({ message: "Collection not found." });
    const tokens = await t.server.request(docs("_tokens"), as());
    expect(tokens.status).toBe(200);
    expect(tokens.body.items.length).toBeGreaterThan(0);
  });
});
