import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiSuite } from "../../testing/api-suite";
import { multipartBody, rawRequest } from "../../testing/raw-request";
import { PNG } from "./files-helpers";

// Issue 17 items 1, 2, 4 and 6, issue 10 item 10, issue 14 bug 8: each a regression test.
const t = apiSuite();
const docs = (collection: string) => `/api/collections/${collection}/documents/`;
const as = (extra: Record<string, unknown> = {}) => ({ project: t.owner.project, token: t.owner.token, ...extra });
const auth = () => ({ "x-project": t.owner.project, authorization: `Token ${t.owner.token}` });
const sendMultipart = (path: string, parts: Parameters<typeof multipartBody>[0], method = "POST") => {
  const { body, contentType } = multipartBody(parts);
  return rawRequest(t.server.port, path, { method, body, headers: { ...auth(), "content-type": contentType } });
};

const prototypeNames = () => [Object.getOwnPropertyNames(Object.prototype).sort(), Object.getOwnPropertyNames(Array.prototype).sort(), Object.getOwnPropertyNames(Object).sort()];
let clean: string[][];
beforeAll(() => {
  clean = prototypeNames();
});
afterAll(() => {
  // Whatever ran above, nothing reached the prototypes every request shares.
  expect(prototypeNames()).toEqual(clean);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

describe("prototype pollution (issue 17 item 1)", () => {
  it("refuses __proto__ in property paths, bodies, filters, updates, fields, sort, ids and schemas", async () => {
    await t.server.request(`${docs("pp")}d1/`, as({ method: "PUT", json: { a: 1 } }));
    const hostile: [string, Record<string, unknown>][] = [
      [`${docs("pp")}d1/__proto__/polluted/`, { method: "PUT", json: "yes" }],
      [`${docs("pp")}d1/a/__proto__/`, { method: "PUT", json: { polluted: "yes" } }],
      [`${docs("pp")}d1/__proto__/`, { method: "DELETE" }],
      [`${docs("pp")}d1/%5F%5Fproto%5F%5F/polluted/`, { method: "PUT", json: "yes" }],
      [`${docs("pp")}`, { json: { a: { b: [{ ["__proto__"]: { polluted: "yes" } }] } } }],
      [`${docs("pp")}d1/`, { method: "PATCH", json: { ["__proto__"]: { polluted: "yes" } } }],
      [`${docs("pp")}d1/`, { method: "PATCH", json: { a: { ["__proto__"]: { polluted: "yes" } } }, headers: { "content-type": "application/merge-patch+json" } }],
      [`${docs("pp")}?filter=${encodeURIComponent('{"__proto__.polluted":1}')}`, {}],
      [`${docs("pp")}?filter=${encodeURIComponent('{"a":{"__proto__":1}}')}`, {}],
      [`${docs("pp")}`, { action: "find", json: { filter: { "a.__proto__.b": 1 } } }],
      [`${docs("pp")}`, { action: "update", json: { filter: {}, operation: { $set: { "__proto__.polluted": "yes" } } } }],
      [`${docs("pp")}`, { action: "update", json: { filter: {}, operation: { $rename: { a: "__proto__.polluted" } } } }],
      [`${docs("pp")}?fields=__proto__`, {}],
      [`${docs("pp")}?fields_exclude=a.__proto__`, {}],
      [`${docs("pp")}?sort=__proto__.x`, {}],
      [`${docs("pp")}__proto__/`, { method: "PUT", json: { polluted: "yes" } }],
      [`${docs("pp")}`, { json: { _id: "__proto__", polluted: "yes" } }],
      ["/api/collections/pp2/", { json: { schema: { type: "object", properties: { ["__proto__"]: { type: "string" } } } } }],
      ["/api/collections/_tokens/documents/", { action: "find", json: { filter: { "__proto__.x": 1 } } }],
      ["/api/collections/", { action: "find", json: { filter: { ["__proto__"]: { $exists: true } } } }],
    ];
    for (const [path, options] of hostile) {
      // JSON.stringify drops a computed "__proto__" key only when it is the real prototype: these are own keys.
      const res = await t.server.request(path, as(options));
      expect([400, 422], `${path} ${JSON.stringify(options)}: ${res.status} ${res.text}`).toContain(res.status);
      expect(res.body.message, path).toMatch(/__proto__|Validation error/);
    }
    const multipart = await sendMultipart(docs("pp"), [{ name: "a.__proto__.polluted", value: '"yes"' }]);
    expect(multipart.status, multipart.text).toBe(400);
    const bracketed = await sendMultipart(docs("pp"), [{ name: "a[__proto__][polluted]", value: '"yes"' }]);
    expect(bracketed.status, bracketed.text).toBe(400);
    const filePart = await sendMultipart(docs("pp"), [{ name: "__proto__[polluted]", filename: "x.png", type: "image/png", value: PNG }]);
    expect(filePart.status, filePart.text).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(prototypeNames()).toEqual(clean);
    const after = await t.server.request(`${docs("pp")}d1/`, as());
    expect(after.body).toEqual({ _id: "d1", a: 1 });
  });

  it("keeps constructor, prototype and toString as ordinary keys that round-trip", async () => {
    const doc = { _id: "c1", constructor: { prototype: { polluted: "no" } }, prototype: [1], toString: "s", hasOwnProperty: 2 };
    const created = await t.server.request(docs("ctor"), as({ json: doc }));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual(doc);
    expect((await t.server.request(`${docs("ctor")}c1/constructor/prototype/polluted/`, as())).body).toBe("no");

    const set = await t.server.request(`${docs("ctor")}c2/`, as({ method: "PUT", json: { a: 1 } }));
    expect(set.status).toBe(201);
    const deep = await t.server.request(`${docs("ctor")}c2/constructor/prototype/x/`, as({ method: "PUT", json: 5 }));
    expect(deep.status, deep.text).toBe(201);
    const merged = await t.server.request(`${docs("ctor")}c2/`, as({ method: "PATCH", json: { valueOf: { y: 1 } }, headers: { "content-type": "application/merge-patch+json" } }));
    expect(merged.status, merged.text).toBe(200);
    const updated = await t.server.request(docs("ctor"), as({ action: "update", json: { filter: { _id: "c2" }, operation: { $set: { "toString.z": 3 }, $inc: { "constructor.prototype.x": 1 } } } }));
    expect(updated.body).toEqual({ updated: 1 });
    const read = await t.server.request(`${docs("ctor")}c2/`, as());
    expect(read.body).toEqual({ _id: "c2", a: 1, constructor: { prototype: { x: 6 } }, valueOf: { y: 1 }, toString: { z: 3 } });

    const upsert = await t.server.request(docs("ctor"), as({ action: "upsert", json: { filter: { "constructor.prototype.polluted": "seed" }, operation: { $set: { b: 1 } } } }));
    expect(upsert.status, upsert.text).toBe(200);
    const seeded = await t.server.request(`${docs("ctor")}${upsert.body.upsertedId}/`, as());
    expect(seeded.body).toMatchObject({ constructor: { prototype: { polluted: "seed" } }, b: 1 });

    const found = await t.server.request(`${docs("ctor")}?filter=${encodeURIComponent('{"constructor.prototype.x":6}')}&fields=constructor,toString&sort=-constructor.prototype.x`, as());
    expect(found.body.items).toEqual([{ _id: "c2", constructor: { prototype: { x: 6 } }, toString: { z: 3 } }]);
    const missing = await t.server.request(`${docs("ctor")}?filter=${encodeURIComponent('{"toString":{"$exists":true}}')}`, as());
    expect(missing.body.items.map((d: { _id: string }) => d._id).sort()).toEqual(["c1", "c2"]);

    const schema = await t.server.request("/api/collections/ctor-schema/", as({ json: { schema: { type: "object", properties: { constructor: { type: "string", required: true } } } } }));
    expect(schema.status, schema.text).toBe(201);
    expect((await t.server.request(docs("ctor-schema"), as({ json: { x: 1 } }))).status).toBe(422);
    expect((await t.server.request(docs("ctor-schema"), as({ json: { constructor: "ok" } }))).status).toBe(201);
    const multipart = await sendMultipart(docs("ctor"), [{ name: "constructor[prototype]", value: '"m"' }, { name: "_id", value: '"c3"' }]);
    expect(multipart.status, multipart.text).toBe(201);
    expect(multipart.body).toEqual({ _id: "c3", constructor: { prototype: "m" } });
  });
});

describe("regular expressions (issue 17 item 2)", () => {
  it("a catastrophic-backtracking $regex on a system collection answers at once", async () => {
    const name = `${"a".repeat(40)}!`;
    expect((await t.server.request("/api/collections/redos/", as({ json: { name } }))).status).toBe(201);
    const filter = encodeURIComponent(JSON.stringify({ name: { $regex: "^(a+)+$" } }));
    const res = await t.server.request(`/api/collections/?filter=${filter}`, as());
    expect(res.status, res.text).toBe(200);
    expect(res.body.items).toEqual([]);
    const hit = await t.server.request(`/api/collections/?filter=${encodeURIComponent(JSON.stringify({ name: { $regex: "^(a+)+!$" } }))}`, as());
    expect(hit.body.items.map((c: { _id: string }) => c._id)).toEqual(["redos"]);
  });

  it("backreferences and lookarounds: 400; a pattern PostgreSQL refuses: 400", async () => {
    await t.server.request(docs("re"), as({ json: { s: "abc" } }));
    for (const regex of ["(a)\\1", "a(?=b)", "(?<!a)b"]) {
      const res = await t.server.request(docs("re"), as({ action: "find", json: { filter: { s: { $regex: regex } } } }));
      expect(res.status, regex).toBe(400);
      expect(res.body.message).toMatch(/not supported/);
    }
    const tooComplex = await t.server.request(docs("re"), as({ action: "find", json: { filter: { s: { $regex: "(a?){100}".repeat(30) } } } }));
    expect(tooComplex.status, tooComplex.text).toBe(400);
    expect(tooComplex.body.message).toMatch(/regex/i);
  });
});

describe("bad input is a 4xx, never a 500 (issue 17 item 6)", () => {
  it("NUL in strings, keys, ids, text, filters and file names", async () => {
    const cases: [string, Record<string, unknown>][] = [
      [docs("nul"), { json: { s: "a\u0000b" } }],
      [docs("nul"), { json: { "k\u0000": 1 } }],
      [docs("nul"), { json: { _id: "a\u0000" } }],
      [docs("nul"), { json: { s: "\ud800" } }],
      [`${docs("nul")}?text=a%00b`, {}],
      [`${docs("nul")}?filter=${encodeURIComponent('{"s":"a\\u0000"}')}`, {}],
      [`${docs("nul")}a%00b/`, { method: "PUT", json: {} }],
      [`${docs("nul")}a%00b/`, {}],
      ["/api/collections/a%00b/", {}],
      ["/api/collections/a%00b/documents/", {}],
      ["/api/collections/_tokens/documents/a%00b/", {}],
      ["/api/collections/_users/documents/a%00b/", {}],
      ["/api/collections/_hooks/documents/a%00b/", { method: "DELETE" }],
      ["/api/collections/_files/documents/a%00b/content/", {}],
      ["/api/collections/_notification/documents/a%00b/", {}],
      [`${docs("nul")}`, { action: "update", json: { filter: {}, operation: { $set: { s: "\u0000" } } } }],
    ];
    for (const [path, options] of cases) {
      const res = await t.server.request(path, as(options));
      expect([400, 404, 422], `${path} ${JSON.stringify(options)}: ${res.status} ${res.text}`).toContain(res.status);
    }
    const file = await sendMultipart(docs("nul"), [{ name: "f", filename: "a\u0000.png", type: "image/png", value: PNG }]);
    expect([400, 422]).toContain(file.status);
    const field = await sendMultipart(docs("nul"), [{ name: "s", value: '"\\u0000"' }]);
    expect(field.status).toBe(400);
  });

  it("a JSON body that is not valid UTF-8 is 400, never stored with replacement characters", async () => {
    const { rawRequest } = await import("../../testing/raw-request");
    // A byte that is never UTF-8, and a multi-byte sequence cut short.
    for (const bytes of [Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d])]) {
      const res = await rawRequest(t.server.port, `${docs("utf8")}`, {
        method: "POST",
        headers: { authorization: `Token ${t.owner.token}`, "x-project": t.owner.project, "content-type": "application/json" },
        body: bytes,
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({ message: "Malformed JSON in request body: not valid UTF-8" });
    }
    expect((await t.server.request(docs("utf8"), as())).status).toBe(404);
    // Bytes of another media type (an image sent as text/plain or octet-stream) are a 415 as
    // any such body is, not a malformed JSON one.
    for (const type of ["text/plain", "application/octet-stream", "image/png"]) {
      const binary = await rawRequest(t.server.port, `${docs("utf8")}x/p/`, {
        method: "POST",
        headers: { authorization: `Token ${t.owner.token}`, "x-project": t.owner.project, "content-type": type },
        body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe]),
      });
      expect(binary.status, `${type} ${binary.text}`).toBe(415);
    }
  });

  it("nesting: a document 2,000 deep and filters, updates, schemas and multipart beyond 64", async () => {
    const nest = (depth: number): unknown => (depth === 0 ? 1 : { a: nest(depth - 1) });
    const deep = await t.server.request(docs("deep"), as({ json: { d: nest(2000) } }));
    expect(deep.status).toBe(400);
    expect(deep.body.message).toMatch(/nested too deeply \(at most 64 levels\)/);
    expect((await t.server.request(docs("deep"), as({ json: { d: nest(62) } }))).status).toBe(201);
    expect((await t.server.request(docs("deep"), as({ json: { d: nest(64) } }))).status).toBe(400);
    const filter = await t.server.request(docs("deep"), as({ action: "find", json: { filter: { d: { $elemMatch: nest(100) } } } }));
    expect(filter.status).toBe(400);
    const param = await t.server.request(`${docs("deep")}?filter=${encodeURIComponent(JSON.stringify({ d: nest(100) }))}`, as());
    expect(param.status).toBe(400);
    const update = await t.server.request(docs("deep"), as({ action: "update", json: { filter: {}, operation: { $set: { d: nest(100) } } } }));
    expect(update.status).toBe(400);
    const schema = await t.server.request("/api/collections/deep-schema/", as({ json: { schema: nest(100) } }));
    expect(schema.status).toBe(400);
    const multipart = await sendMultipart(docs("deep"), [{ name: "d", value: JSON.stringify(nest(100)) }]);
    expect(multipart.status).toBe(400);
    const longName = await sendMultipart(docs("deep"), [{ name: Array.from({ length: 70 }, () => "a").join("."), value: "1" }]);
    expect(longName.status).toBe(400);
    // The accepted document still patches, updates and projects.
    const list = await t.server.request(`${docs("deep")}?fields_exclude=d.a.a`, as());
    expect(list.status).toBe(200);
  });

  it("no write route grows an object past 10,000 keys (merges of bodies within the bound included); nothing changes", async () => {
    const o = Object.fromEntries(Array.from({ length: 9_999 }, (_, i) => [`k${i}`, i]));
    expect((await t.server.request(`${docs("wide")}w/`, as({ method: "PUT", json: { o } }))).status).toBe(201);
    expect((await t.server.request(`${docs("wide")}w/o/tenthousandth/`, as({ method: "PUT", json: 1 }))).status).toBe(201);
    const more = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`x${i}`, i]));
    const attempts = [
      () => t.server.request(`${docs("wide")}w/o/one-more/`, as({ method: "PUT", json: 1 })),
      () => t.server.request(`${docs("wide")}w/`, as({ method: "PATCH", headers: { "content-type": "application/merge-patch+json" }, body: JSON.stringify({ o: more }) })),
      () => t.server.request(`${docs("wide")}w/o/`, as({ method: "PATCH", json: more })),
      () => t.server.request(docs("wide"), as({ action: "update", json: { filter: { _id: "w" }, operation: { $set: { "o.y": 1 } } } })),
    ];
    for (const attempt of attempts) {
      const res = await attempt();
      expect(res.status, res.text.slice(0, 200)).toBe(400);
      expect(res.body.message).toMatch(/holds an object of more than 10000 keys$/);
    }
    expect(Object.keys((await t.server.request(`${docs("wide")}w/o/`, as())).body)).toHaveLength(10_000);
    // A plain PATCH merges top-level keys: two bodies of 6,000 each.
    const half = (prefix: string) => Object.fromEntries(Array.from({ length: 6_000 }, (_, i) => [`${prefix}${i}`, i]));
    expect((await t.server.request(`${docs("wide")}top/`, as({ method: "PUT", json: half("a") }))).status).toBe(201);
    const merged = await t.server.request(`${docs("wide")}top/`, as({ method: "PATCH", json: half("b") }));
    expect(merged.status).toBe(400);
    expect(Object.keys((await t.server.request(`${docs("wide")}top/`, as())).body)).toHaveLength(6_001);
  });

  it("$in with 50,000 values and sort with 2,000 keys: 400 with the bound", async () => {
    await t.server.request(docs("bounds"), as({ json: { n: 1 } }));
    const values = Array.from({ length: 50_000 }, (_, i) => i);
    const inRes = await t.server.request(docs("bounds"), as({ action: "find", json: { filter: { n: { $in: values } } } }));
    expect(inRes.status).toBe(400);
    expect(inRes.body.message).toBe("$in takes at most 1000 values");
    expect((await t.server.request(docs("bounds"), as({ action: "find", json: { filter: { n: { $nin: values.slice(0, 1000) } } } }))).status).toBe(200);
    const sort = Array.from({ length: 2000 }, (_, i) => `k${i}`).join(",");
    const sortRes = await t.server.request(`${docs("bounds")}?sort=${sort}`, as());
    expect(sortRes.status).toBe(400);
    expect(sortRes.body.message).toBe("sort takes at most 32 keys");
    const many = await t.server.request(docs("bounds"), as({ action: "find", json: { filter: { $or: Array.from({ length: 2000 }, (_, i) => ({ n: i })) } } }));
    expect(many.status).toBe(400);
    expect(many.body.message).toMatch(/too many conditions/);
    // 1,000 values a list, but not 200 lists of them: 10,000 in one filter.
    const lists = (n: number) => ({ $or: Array.from({ length: n }, (_, j) => ({ n: { $in: values.slice(j * 1000, j * 1000 + 1000) } })) });
    const allLists = await t.server.request(docs("bounds"), as({ action: "find", json: { filter: lists(11) } }));
    expect(allLists.status).toBe(400);
    expect(allLists.body.message).toBe("Filter has too many $in, $nin and $all values together (at most 10000)");
    expect((await t.server.request(docs("bounds"), as({ action: "find", json: { filter: lists(10) } }))).status).toBe(200);
  });

  it("a full-text search of more than 10,000 characters is 400 (a megabyte of words was a tsquery PostgreSQL refused: 500)", async () => {
    expect((await t.server.request("/api/collections/searched/", as({ json: { indexes: [{ type: "text", property: "s" }] } }))).status).toBe(201);
    await t.server.request(docs("searched"), as({ json: { s: "word1 here" } }));
    const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(" ");
    const huge = await t.server.request(docs("searched"), as({ action: "find", json: { text: words(150_000) } }));
    expect(huge.status).toBe(400);
    expect(huge.body.message).toBe("text takes at most 10000 characters");
    expect((await t.server.request(`${docs("searched")}?text=${"w".repeat(10_001)}`, as())).status).toBe(400);
    const found = await t.server.request(docs("searched"), as({ action: "find", json: { text: words(1_000).slice(0, 10_000) } }));
    expect(found.status, found.text).toBe(200);
  });

  it("reserved names as collection ids, malformed escapes, GET *, a hostile cookie", async () => {
    for (const id of ["_files", "_users", "_tokens", "_hooks", "__proto__", "constructor"]) {
      const res = await t.server.request(docs(id), as({ json: { a: 1 } }));
      expect(res.status, `${id}: ${res.text}`).toBeLessThan(500);
      const create = await t.server.request(`/api/collections/${id}/`, as({ json: { name: "x" } }));
      expect(create.status, `${id}: ${create.text}`).toBeLessThan(500);
    }
    for (const target of ["/api/collections/%E0%A4%A/", `${docs("esc")}%E0%A4%A/`, `${docs("esc")}d/%E0%A4%A/`, "/api/collections/esc/%ZZ/", "*", "/api/%"]) {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const res = await rawRequest(t.server.port, target, { method, headers: { ...auth(), "content-type": "application/json" }, body: method === "PUT" ? "{}" : undefined });
        expect(res.status, `${method} ${target}: ${res.text}`).toBeLessThan(500);
      }
    }
    for (const cookie of ["a=%%%", "arca_session=%E0%A4%A", "a=%; b=%%; c=\u00ff"]) {
      for (const path of ["/api/info/", docs("esc"), "/api/user/projects/"]) {
        const res = await rawRequest(t.server.port, path, { headers: { ...auth(), cookie: Buffer.from(cookie, "latin1").toString("latin1") } });
        expect(res.status, `${cookie} ${path}: ${res.text}`).toBeLessThan(500);
      }
    }
  });
});

describe("requests the HTTP adapter cannot parse", () => {
  it("a backslash in the path or a Host that is no host[:port] gets a JSON 400 with the CORS headers", async () => {
    for (const [path, host] of [["/api/nope\\x", undefined], ["/api/user/projects/a\\b/", undefined], ["/api/health", "localhost:99999"], ["/api/health", "p.localhost:1.evil"]] as const) {
      const res = await rawRequest(t.server.port, path, { headers: host ? { host } : {} });
      expect(res.status, `${path} ${host}`).toBe(400);
      expect(res.headers["content-type"]).toMatch(/^application\/json/);
      expect(JSON.parse(res.text).message).toMatch(/^Bad request: /);
      expect(res.headers["access-control-allow-origin"]).toBe("*");
      expect(res.headers["access-control-expose-headers"]).toContain("Content-Range");
    }
    // With ARCA_CORS_ORIGINS, a listed Origin is echoed on these answers too.
    process.env.ARCA_CORS_ORIGINS = "https://app.example";
    try {
      const res = await rawRequest(t.server.port, "/api/nope\\x", { headers: { origin: "https://app.example" } });
      expect(res.status).toBe(400);
      expect(res.headers["access-control-allow-origin"]).toBe("https://app.example");
    } finally {
      delete process.env.ARCA_CORS_ORIGINS;
    }
  });
});

describe("multipart names and files (issue 10 item 10, issue 14 bug 8, issue 17 item 5)", () => {
  it("bracketed names build arrays in index order and equal dotted names", async () => {
    const res = await sendMultipart(docs("brackets"), [
      { name: "_id", value: '"b1"' },
      { name: "phones[1]", value: '"second"' },
      { name: "phones[0]", value: '"first"' },
      { name: "address[city]", value: '"Paris"' },
      { name: "address.zip", value: '"75001"' },
      { name: "a[b][0].c", value: "1" },
      { name: "a[b][1][c]", value: "2" },
    ]);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({ _id: "b1", phones: ["first", "second"], address: { city: "Paris", zip: "75001" }, a: { b: [{ c: 1 }, { c: 2 }] } });
    const file = await sendMultipart(docs("brackets"), [{ name: "_id", value: '"b2"' }, { name: "meta[avatar]", filename: "me.png", type: "image/png", value: PNG }]);
    expect(file.status, file.text).toBe(201);
    expect(file.body.meta.avatar).toMatchObject({ name: "me.png", content_type: "image/png" });
  });

  it("sparse, huge and conflicting indexes: 400", async () => {
    for (const parts of [
      [{ name: "x[100000]", value: "1" }],
      [{ name: "x[0]", value: "1" }, { name: "x[2]", value: "3" }],
      [{ name: "x[0]", value: "1" }, { name: "x.a", value: "1" }],
      [{ name: "x[]", value: "1" }, { name: "x[0]", value: "2" }],
      [{ name: "x[][a]", value: "1" }],
      [{ name: "[]", value: "1" }],
      [{ name: "x]", value: "1" }],
      [{ name: "[0]", value: "1" }],
    ]) {
      const res = await sendMultipart(docs("brackets"), parts);
      expect(res.status, `${JSON.stringify(parts)}: ${res.text}`).toBe(400);
    }
  });

  it('a double quote in a file name is stored as ", as Chromium sends it (%22); filename* is UTF-8', async () => {
    const chromium = await sendMultipart(docs("names"), [{ name: "_id", value: '"n1"' }, { name: "f", filename: 'say %22hi%22.png', type: "image/png", value: PNG }]);
    expect(chromium.status, chromium.text).toBe(201);
    expect(chromium.body.f.name).toBe('say "hi".png');
    const star = await sendMultipart(docs("names"), [{ name: "_id", value: '"n2"' }, { name: "f", filenameStar: "UTF-8''r%C3%A9sum%C3%A9%20%22v2%22.png", type: "image/png", value: PNG }]);
    expect(star.status, star.text).toBe(201);
    expect(star.body.f.name).toBe('résumé "v2".png');
    const record = await t.server.request(`/api/collections/_files/documents/${chromium.body.f._id}/`, as());
    expect(record.body.name).toBe('say "hi".png');
  });

  it("indexed file parts take their places in index order; a gap, a repeat or a mix with plain names is 400 and stores nothing", async () => {
    const schema = { type: "object", properties: { photos: { type: "array", items: { type: "file" } } } };
    expect((await t.server.request("/api/collections/gallery/", as({ method: "PUT", json: { schema } }))).status).toBeLessThan(300);
    const text = Buffer.from("plain words\n");
    const ordered = await sendMultipart(docs("gallery"), [
      { name: "_id", value: '"g1"' },
      { name: "photos[1]", filename: "second.txt", type: "text/plain", value: text },
      { name: "photos[0]", filename: "first.png", type: "image/png", value: PNG },
    ]);
    expect(ordered.status, ordered.text).toBe(201);
    expect(ordered.body.photos.map((f: { name: string }) => f.name)).toEqual(["first.png", "second.txt"]);
    // Without a schema only the first is stored: the one at index 0.
    const first = await sendMultipart(docs("loose"), [
      { name: "_id", value: '"l1"' },
      { name: "ph[1]", filename: "second.png", type: "image/png", value: PNG },
      { name: "ph[0]", filename: "first.txt", type: "text/plain", value: text },
    ]);
    expect(first.status, first.text).toBe(201);
    expect(first.body.ph.name).toBe("first.txt");
    const before = await t.db.query("SELECT count(*)::int AS n FROM files WHERE project_id = $1", [t.owner.project]);
    for (const parts of [
      [{ name: "ph[1]", filename: "a.png", type: "image/png", value: PNG }],
      [{ name: "ph[0]", filename: "a.png", type: "image/png", value: PNG }, { name: "ph[0]", filename: "b.png", type: "image/png", value: PNG }],
      [{ name: "ph[0]", filename: "a.png", type: "image/png", value: PNG }, { name: "ph", filename: "b.png", type: "image/png", value: PNG }],
    ]) {
      const res = await sendMultipart(docs("loose"), parts);
      expect(res.status, `${parts.map((p) => p.name)}: ${res.text}`).toBe(400);
    }
    const after = await t.db.query("SELECT count(*)::int AS n FROM files WHERE project_id = $1", [t.owner.project]);
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it("a file part named _id is refused and leaves no record", async () => {
    const before = await t.db.query("SELECT count(*)::int AS n FROM files WHERE project_id = $1", [t.owner.project]);
    const res = await sendMultipart(docs("names"), [{ name: "_id", filename: "x.png", type: "image/png", value: PNG }]);
    expect(res.status, res.text).toBe(400);
    expect(res.body.message).toBe("A file part cannot be named _id");
    const after = await t.db.query("SELECT count(*)::int AS n FROM files WHERE project_id = $1", [t.owner.project]);
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });
});
