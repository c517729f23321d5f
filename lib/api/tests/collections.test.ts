import { beforeAll, describe, expect, it } from "vitest";
import { bigCollection, createToken, ownerWithProject } from "../../testing/fixtures";
import { sweepOrphanIndexes } from "../../collections/index-sweep";
import { collectionPrefix, INDEX_SWEEP_LOCK, planIndexes } from "../../collections/collection-indexes";
import { apiSuite } from "../../testing/api-suite";

const t = apiSuite();

const as = (extra: Record<string, unknown> = {}) => ({ project: t.owner.project, token: t.owner.token, ...extra });
const docs = (collection: string) => `/api/collections/${collection}/documents/`;

async function indexNames(collection: string): Promise<string[]> {
  const { rows } = await t.db.query(
    "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'documents' AND indexdef LIKE $1",
    [`%project_id = '${t.owner.project}'::text%collection_id = '${collection}'::text%`],
  );
  return rows.map((r) => r.indexname);
}

describe("collections API", () => {
  it("creates, reads, lists (system ones flagged), saves, patches, deletes", async () => {
    const created = await t.server.request("/api/collections/", as({ json: { _id: "books", name: "Books", description: "All books" } }));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({
      _id: "books",
      name: "Books",
      description: "All books",
      documents_count: 0,
      schema: { type: "object", properties: {}, additionalProperties: true },
      indexes: [],
      is_system: false,
    });
    expect((await t.server.request("/api/collections/books/", as({ json: {} }))).status).toBe(409);
    const list = await t.server.request("/api/collections/", as());
    expect(list.status).toBe(200);
    const ids = list.body.items.map((c: any) => c._id);
    expect(ids).toEqual(expect.arrayContaining(["_files", "_users", "_notification", "_usage", "_debug", "_tokens", "_hooks", "_hooks_history", "books"]));
    expect(list.body.items.find((c: any) => c._id === "_tokens").is_system).toBe(true);
    expect(list.body.items.find((c: any) => c._id === "_tokens").documents_count).toBeGreaterThan(0);
    const found = await t.server.request("/api/collections/", as({ action: "find", json: { filter: { is_system: false } } }));
    expect(found.body.items.map((c: any) => c._id)).toEqual(["books"]);
    expect((await t.server.request("/api/collections/books/?fields=name", as())).body).toEqual({ _id: "books", name: "Books" });
    expect((await t.server.request("/api/collections/books/?fields_exclude=schema,indexes,description", as())).body).toEqual({ _id: "books", name: "Books", documents_count: 0, is_system: false });
    expect((await t.server.request("/api/collections/books/name/", as())).body).toBe("Books");
    expect((await t.server.request("/api/collections/books/nothing/", as())).status).toBe(404);
    const put = await t.server.request("/api/collections/books/", as({ method: "PUT", json: { name: "B" } }));
    expect(put.status).toBe(200);
    expect(put.body.description).toBe("");
    const putNew = await t.server.request("/api/collections/mags/", as({ method: "PUT", json: { name: "M" } }));
    expect(putNew.status).toBe(201);
    const patched = await t.server.request("/api/collections/books/", as({ method: "PATCH", json: { description: "d" } }));
    expect(patched.body).toMatchObject({ name: "B", description: "d" });
    expect((await t.server.request("/api/collections/ghost/", as({ method: "PATCH", json: {} }))).body).toEqual({ message: "Collection not found." });
    await t.server.request(docs("books"), as({ json: { _id: "b1" } }));
    expect((await t.server.request("/api/collections/books/", as({ method: "DELETE" }))).status).toBe(204);
    expect((await t.server.request("/api/collections/books/", as())).status).toBe(404);
    expect((await t.server.request(`${docs("books")}b1/`, as())).status).toBe(404);
    const events = await t.db.query("SELECT kind FROM document_events WHERE project_id = $1 AND collection_id = 'books' ORDER BY id", [t.owner.project]);
    expect(events.rows.map((r) => r.kind)).toEqual(["created", "deleted"]);
  });

  it("concurrent creates of one collection: one 201 and 409s; concurrent saves: one 201 and 200s; the stored definition is one of theirs", async () => {
    const posts = await Promise.all(Array.from({ length: 8 }, (_, i) => t.server.request("/api/collections/", as({ json: { _id: "racec", description: `d${i}` } }))));
    expect(posts.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    const winner = posts.find((r) => r.status === 201)!;
    expect((await t.server.request("/api/collections/racec/", as())).body.description).toBe(winner.body.description);
    for (const r of posts.filter((r) => r.status === 409)) expect(r.body).toEqual({ message: "Collection already exists." });
    const puts = await Promise.all(Array.from({ length: 8 }, (_, i) => t.server.request("/api/collections/racep/", as({ method: "PUT", json: { description: `p${i}` } }))));
    expect(puts.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
  });

  it("refuses bad ids (422, a leading _ too) and system collections (403)", async () => {
    const reserved = await t.server.request("/api/collections/_mine/", as({ json: {} }));
    expect(reserved.status).toBe(422);
    expect(reserved.body.errors[0].property).toBe("_id");
    expect((await t.server.request("/api/collections/", as({ method: "PUT", json: { _id: "_mine" } }))).status).toBe(422);
    expect((await t.server.request("/api/collections/_mine/", as({ method: "DELETE" }))).status).toBe(404);
    expect((await t.server.request("/api/collections/", as({ json: { _id: "bad name" } }))).status).toBe(422);
    expect((await t.server.request("/api/collections/_tokens/", as({ method: "PUT", json: {} }))).status).toBe(403);
    // Creating one under a system name is refused like any other `_` id (CONTRACT §4: 422).
    for (const [path, json] of [["/api/collections/", { _id: "_files" }], ["/api/collections/_users/", {}], ["/api/collections/_notifications/", {}]] as const) {
      const made = await t.server.request(path, as({ json }));
      expect(made.status, `${path} ${made.text}`).toBe(422);
      expect(made.body.errors).toEqual([{ property: "_id", message: "Collection names starting with _ are reserved for system collections" }]);
    }
    expect((await t.server.request("/api/collections/_files/", as({ method: "DELETE" }))).status).toBe(403);
    expect((await t.server.request("/api/collections/_users/", as())).body.is_system).toBe(true);
    expect((await t.server.request("/api/collections/x/", as({ json: { bogus: 1 } }))).status).toBe(422);
  });

  it("a document write cannot create a collection under an id a collection may not have (422, nothing created)", async () => {
    const long = "b".repeat(65);
    for (const id of ["-bad", "a.b", long, "_mine"]) {
      for (const [path, options] of [
        [`/api/collections/${encodeURIComponent(id)}/documents/`, { json: { a: 1 } }],
        [`/api/collections/${encodeURIComponent(id)}/documents/d1/`, { method: "PUT", json: { a: 1 } }],
        [`/api/collections/${encodeURIComponent(id)}/documents/`, { action: "upsert", json: { filter: { a: 1 }, operation: { $set: { b: 1 } } } }],
      ] as const) {
        const res = await t.server.request(path, as(options));
        expect(res.status, `${id} ${path} ${res.text}`).toBe(422);
        expect(res.body.errors[0].property).toBe("collection");
      }
      expect((await t.server.request(`/api/collections/${encodeURIComponent(id)}/documents/`, as())).status).toBe(404);
    }
    const ids = (await t.server.request("/api/collections/?per_page=1000", as())).body.items.map((c: { _id: string }) => c._id);
    expect(ids).not.toContain("a.b");
    expect(ids).not.toContain("-bad");
  });

  it("a token without manage rights cannot define collections (403)", async () => {
    const writer = await createToken(t.server, t.owner.session, t.owner.project, { allow: { write: ["w"], read: ["w"] } });
    expect((await t.server.request(docs("w"), { project: t.owner.project, token: writer, json: { a: 1 } })).status).toBe(201);
    expect((await t.server.request("/api/collections/w/", { project: t.owner.project, token: writer, method: "DELETE" })).status).toBe(403);
  });
});

describe("schemas", () => {
  const schema = {
    properties: {
      title: { type: "string", required: true },
      year: { type: "integer", minimum: 0 },
      code: { type: "string", immutable: true, position: 2 },
      published: { type: "datetime" },
      author: { type: "embed", collection: "authors", field: "_id" },
      meta: { type: "object", properties: { pages: { type: "integer" } } },
      cover: { type: "file" },
    },
  };

  beforeAll(async () => {
    const created = await t.server.request("/api/collections/", as({ json: { _id: "articles", schema } }));
    expect(created.status, created.text).toBe(201);
    await t.server.request(docs("authors"), as({ json: { _id: "ann", name: "Ann" } }));
  });

  it("422 naming each property: required, type, additionalProperties (default false), nested", async () => {
    const response = await t.server.request(docs("articles"), as({ json: { year: -1, extra: 1, meta: { pages: "x", other: 1 } } }));
    expect(response.status).toBe(422);
    expect(response.body.message).toBe("Validation error");
    const properties = response.body.errors.map((e: any) => e.property).sort();
    expect(properties).toEqual(["extra", "meta.other", "meta.pages", "title", "year"]);
  });

  it("normalizes datetime to UTC, rejects non-dates", async () => {
    const ok = await t.server.request(docs("articles"), as({ json: { _id: "a1", title: "T", published: "2024-03-01T12:00:00+02:00", code: "X" } }));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.published).toBe("2024-03-01T10:00:00.000Z");
    const bad = await t.server.request(docs("articles"), as({ json: { title: "T", published: "yesterday" } }));
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].property).toBe("published");
  });

  it("immutable properties cannot change once set", async () => {
    const changed = await t.server.request(`${docs("articles")}a1/`, as({ method: "PATCH", json: { code: "Y" } }));
    expect(changed.status).toBe(422);
    expect(changed.body.errors).toEqual([{ property: "code", message: expect.stringContaining("immutable") }]);
    expect((await t.server.request(`${docs("articles")}a1/`, as({ method: "PATCH", json: { year: 2000 } }))).status).toBe(200);
  });

  it("an embed without the collection it reads from is refused at save (422 naming it), nothing saved", async () => {
    const schema = { type: "object", properties: { a: { type: "embed" }, nested: { type: "object", properties: { b: { type: "embed", collection: "" } } } } };
    const res = await t.server.request("/api/collections/badembed/", as({ method: "PUT", json: { schema } }));
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors.map((e: { property: string }) => e.property).sort()).toEqual(["schema.properties.a.collection", "schema.properties.nested.properties.b.collection"]);
    expect((await t.server.request("/api/collections/badembed/", as())).status).toBe(404);
  });

  it("an embed of a system collection is refused at save (it could only ever read back null)", async () => {
    for (const collection of ["_files", "_users", "_tokens"]) {
      const schema = { type: "object", properties: { f: { type: "embed", collection } } };
      const res = await t.server.request("/api/collections/sysembed/", as({ method: "PUT", json: { schema } }));
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors).toEqual([{ property: "schema.properties.f.collection", message: "an embed reads from a user collection, not a system one (a file is a property of type file)" }]);
    }
    expect((await t.server.request("/api/collections/sysembed/", as())).status).toBe(404);
  });

  it("embeds are stored as keys and resolved on read", async () => {
    const created = await t.server.request(docs("articles"), as({ json: { _id: "a2", title: "E", author: "ann" } }));
    expect(created.body.author).toBe("ann");
    const read = await t.server.request(`${docs("articles")}a2/`, as());
    expect(read.body.author).toEqual({ _id: "ann", name: "Ann" });
    const list = await t.server.request(`${docs("articles")}?filter=${encodeURIComponent('{"_id":"a2"}')}`, as());
    expect(list.body.items[0].author).toEqual({ _id: "ann", name: "Ann" });
    // fields / fields_exclude reach into the embedded document, in a list as in a single read.
    for (const [query, expected] of [
      ["fields=author.name", { _id: "a2", author: { name: "Ann" } }],
      ["fields_exclude=author.name,title", { _id: "a2", author: { _id: "ann" } }],
    ] as const) {
      const one = await t.server.request(`${docs("articles")}a2/?${query}`, as());
      const listed = await t.server.request(`${docs("articles")}?filter=${encodeURIComponent('{"_id":"a2"}')}&${query}`, as());
      expect(one.body, query).toEqual(expected);
      expect(listed.body.items, query).toEqual([expected]);
    }
    const { rows } = await t.db.query("SELECT data FROM documents WHERE project_id = $1 AND collection_id = 'articles' AND id = 'a2'", [t.owner.project]);
    expect(rows[0].data.author).toBe("ann");
    // Written back as read (the embedded document in place of its key), it is stored as the key.
    const asRead = (await t.server.request(`${docs("articles")}a2/`, as())).body;
    const saved = await t.server.request(`${docs("articles")}a2/`, as({ method: "PUT", json: { ...asRead, title: "E2" } }));
    expect(saved.status, saved.text).toBe(200);
    const again = await t.db.query("SELECT data FROM documents WHERE project_id = $1 AND collection_id = 'articles' AND id = 'a2'", [t.owner.project]);
    expect(again.rows[0].data).toMatchObject({ title: "E2", author: "ann" });
    // An object without the key is still refused.
    expect((await t.server.request(`${docs("articles")}a2/`, as({ method: "PATCH", json: { author: { name: "Ann" } } }))).status).toBe(422);
  });

  it("file properties take only an uploaded file: an object of the client's making is 422 naming the property", async () => {
    const created = await t.server.request(docs("articles"), as({ json: { title: "F", cover: { _id: "f1", name: "x.png" } } }));
    expect(created.status, created.text).toBe(422);
    expect(created.body.errors).toEqual([{ property: "cover", message: "is not a file of this document: a file property is filled by uploading" }]);
    expect((await t.server.request(docs("articles"), as({ json: { title: "F" } }))).status).toBe(201);
  });

  it("a schema change is seen by the next write (validator cache)", async () => {
    await t.server.request(docs("evolving"), as({ json: { a: 1 } }));
    const set = await t.server.request("/api/collections/evolving/", as({ method: "PATCH", json: { schema: { properties: { a: { type: "string" } } } } }));
    expect(set.status, set.text).toBe(200);
    expect((await t.server.request(docs("evolving"), as({ json: { a: 1 } }))).status).toBe(422);
    expect((await t.server.request(docs("evolving"), as({ json: { a: "1" } }))).status).toBe(201);
    expect((await t.server.request("/api/collections/evolving/", as({ method: "PATCH", json: { schema: { type: 7 } } }))).status).toBe(422);
  });
});

describe("indexes", () => {
  it("creates and drops real partial expression indexes as `indexes` change", async () => {
    const created = await t.server.request("/api/collections/", as({ json: { _id: "indexed", indexes: [{ type: "simple", property: "sku" }, { type: "compound", properties: ["a", "b.c"] }] } }));
    expect(created.status, created.text).toBe(201);
    expect(created.body.indexes).toEqual([{ type: "simple", property: "sku", unique: false }, { type: "compound", properties: ["a", "b.c"], unique: false }]);
    expect((await indexNames("indexed")).length).toBe(3);
    await t.server.request("/api/collections/indexed/", as({ method: "PATCH", json: { indexes: [{ type: "simple", property: "sku" }] } }));
    expect((await indexNames("indexed")).length).toBe(2);
    await t.server.request("/api/collections/indexed/", as({ method: "PATCH", json: { indexes: [] } }));
    expect(await indexNames("indexed")).toEqual([]);
    expect((await t.server.request("/api/collections/indexed/", as({ method: "PATCH", json: { indexes: [{ type: "hash", property: "x" }] } }))).status).toBe(422);
  });

  it("a filtered list on an indexed property uses the index (EXPLAIN)", async () => {
    await t.server.request("/api/collections/", as({ json: { _id: "explained", indexes: [{ type: "simple", property: "sku" }] } }));
    await t.db.query(
      `INSERT INTO documents (project_id, collection_id, id, data) SELECT $1, 'explained', 'e' || g, jsonb_build_object('_id', 'e' || g, 'sku', 'sku-' || g) FROM generate_series(1, 3000) g`,
      [t.owner.project],
    );
    await t.db.query("ANALYZE documents");
    const list = await t.server.request(`${docs("explained")}?filter=${encodeURIComponent('{"sku":"sku-42"}')}`, as());
    expect(list.body.items).toEqual([{ _id: "e42", sku: "sku-42" }]);
    const [name] = await indexNames("explained");
    const { compileFilter, parseFilter } = await import("../../query");
    const { raw, sql } = await import("../../db/sql");
    const statement = sql`EXPLAIN SELECT d.data FROM documents d WHERE d.project_id = ${t.owner.project} AND d.collection_id = ${"explained"} AND ${compileFilter(parseFilter({ sku: "sku-42" }), raw("d.data"))} ORDER BY d.id LIMIT 100`;
    const { text, values } = statement.toQuery();
    const plan = (await t.db.query(text, values)).rows.map((r) => r["QUERY PLAN"]).join("\n");
    expect(plan).toMatch(/di_[0-9a-f]+_[0-9a-f]+/);
    expect(plan).not.toMatch(/Seq Scan/);
    expect(name).toMatch(/^di_/);
  });

  it("unique indexes: 409 on a duplicate; over existing duplicates 409 and nothing changes", async () => {
    await t.server.request("/api/collections/", as({ json: { _id: "uniq", indexes: [{ type: "simple", property: "email", unique: true }] } }));
    expect((await t.server.request(docs("uniq"), as({ json: { email: "a@x" } }))).status).toBe(201);
    const dup = await t.server.request(docs("uniq"), as({ json: { email: "a@x" } }));
    expect(dup.status).toBe(409);
    expect((await t.server.request("/api/collections/uniq/", as())).body.documents_count).toBe(1);
    await t.server.request(docs("dups"), as({ json: { k: 1 } }));
    await t.server.request(docs("dups"), as({ json: { k: 1 } }));
    const refused = await t.server.request("/api/collections/dups/", as({ method: "PATCH", json: { description: "changed", indexes: [{ type: "compound", properties: ["k"], unique: true }] } }));
    expect(refused.status).toBe(409);
    const after = await t.server.request("/api/collections/dups/", as());
    expect(after.body.description).toBe("");
    expect(after.body.indexes).toEqual([]);
    expect(await indexNames("dups")).toEqual([]);
  });

  it("a text-indexed property past PostgreSQL's 1 MiB of words is 422, on a write and when the index is built; nothing changes", async () => {
    const words = Array.from({ length: 150_000 }, (_, i) => `word${i}`).join(" ");
    const tooLong = { property: null, message: "a text-indexed property is too long for full-text search (its words take at most 1 MiB)" };
    expect((await t.server.request("/api/collections/", as({ json: { _id: "long-texts", indexes: [{ type: "text", property: "s" }] } }))).status).toBe(201);
    const written = await t.server.request(docs("long-texts"), as({ json: { _id: "w", s: words } }));
    expect(written.status, written.text.slice(0, 200)).toBe(422);
    expect(written.body.errors).toEqual([tooLong]);
    expect((await t.server.request(`${docs("long-texts")}w/`, as())).status).toBe(404);
    expect((await t.server.request(docs("plain-texts"), as({ json: { _id: "w", s: words } }))).status).toBe(201);
    const indexed = await t.server.request("/api/collections/plain-texts/", as({ method: "PATCH", json: { indexes: [{ type: "text", property: "s" }] } }));
    expect(indexed.status, indexed.text.slice(0, 200)).toBe(422);
    expect(indexed.body.errors).toEqual([tooLong]);
    expect((await t.server.request("/api/collections/plain-texts/", as())).body.indexes).toEqual([]);
  });

  it("text search through a text index in the collection's language", async () => {
    const created = await t.server.request("/api/collections/", as({ json: { _id: "texts", indexes: [{ type: "text", property: "body", language: "en" }] } }));
    expect(created.status, created.text).toBe(201);
    await t.server.request(docs("texts"), as({ json: { _id: "t1", body: "The cats were running in the garden" } }));
    await t.server.request(docs("texts"), as({ json: { _id: "t2", body: "A dog sleeps" } }));
    const hit = await t.server.request(`${docs("texts")}?text=${encodeURIComponent("cat run")}`, as());
    expect(hit.body.items.map((d: any) => d._id)).toEqual(["t1"]);
    const viaFind = await t.server.request(docs("texts"), as({ action: "find", json: { text: "dogs" } }));
    expect(viaFind.body.total).toBe(1);
    expect((await t.server.request("/api/collections/", as({ json: { _id: "ru", indexes: [{ type: "text", property: "t", language: "ru" }] } }))).status).toBe(201);
    await t.server.request(docs("ru"), as({ json: { _id: "r", t: "Кошки бегали по саду" } }));
    expect((await t.server.request(`${docs("ru")}?text=${encodeURIComponent("кошка")}`, as())).body.total).toBe(1);
    expect((await t.server.request("/api/collections/", as({ json: { _id: "xx", indexes: [{ type: "text", property: "t", language: "xx" }] } }))).status).toBe(422);
    expect((await indexNames("texts")).length).toBe(1);
    // Every language PostgreSQL has, by code or by its configuration's name (CONTRACT §4).
    for (const [id, language, text, query] of [["greek", "el", "οι γάτες τρέχουν", "γάτες"], ["catalan", "ca", "els gats corren", "gats"], ["named", "english", "running cats", "cat"]]) {
      const made = await t.server.request("/api/collections/", as({ json: { _id: id, indexes: [{ type: "text", property: "t", language }] } }));
      expect(made.status, `${language} ${made.text}`).toBe(201);
      expect(made.body.indexes).toEqual([{ type: "text", property: "t", language }]);
      await t.server.request(docs(id), as({ json: { _id: "d", t: text } }));
      expect((await t.server.request(`${docs(id)}?text=${encodeURIComponent(query)}`, as())).body.total, language).toBe(1);
    }
    // A server without the configuration (an older external PostgreSQL): 422, nothing made.
    await t.db.query("ALTER TEXT SEARCH CONFIGURATION pg_catalog.yiddish RENAME TO yiddish_hidden");
    try {
      const missing = await t.server.request("/api/collections/", as({ json: { _id: "yiddish", indexes: [{ type: "text", property: "t", language: "yi" }] } }));
      expect(missing.status, missing.text).toBe(422);
      expect(missing.body.errors).toEqual([{ property: "indexes.0.language", message: "is not available on this PostgreSQL server" }]);
      expect((await t.server.request("/api/collections/yiddish/", as())).status).toBe(404);
    } finally {
      await t.db.query("ALTER TEXT SEARCH CONFIGURATION pg_catalog.yiddish_hidden RENAME TO yiddish");
    }
  });
});

describe("processors' credentials in a definition", () => {
  it("are masked for those who may read the collection but not manage it, in clear for those who may", async () => {
    const schema = {
      type: "object",
      properties: {
        q: { type: "string" },
        a: { type: "object", processors: [{ name: "apiai", in: { text: { property: "q" }, api_key: { value: "vendor-secret-1" }, model: { value: "m" } } }] },
      },
    };
    expect((await t.server.request("/api/collections/", as({ json: { _id: "keyed", schema } }))).status).toBe(201);
    const reader = await createToken(t.server, t.owner.session, t.owner.project, { allow: { read: ["keyed"] } });
    const asReader = { project: t.owner.project, token: reader };
    for (const path of ["/api/collections/keyed/", "/api/collections/keyed/schema/properties/a/", "/api/collections/"]) {
      const res = await t.server.request(path, asReader);
      expect(res.status, path).toBe(200);
      expect(res.text, path).not.toContain("vendor-secret-1");
    }
    const arg = await t.server.request("/api/collections/keyed/schema/properties/a/processors/0/in/", asReader);
    expect(arg.body).toEqual({ text: { property: "q" }, api_key: { value: "********" }, model: { value: "m" } });
    expect((await t.server.request("/api/collections/keyed/", as())).body.schema.properties.a.processors[0].in.api_key.value).toBe("vendor-secret-1");
  });
});

describe("collection edges (audit round 8)", () => {
  it("an X-Action on a collection property path is refused, never a create", async () => {
    expect((await t.server.request("/api/collections/", as({ json: { _id: "verbs" } }))).status).toBe(201);
    const listVerb = await t.server.request("/api/collections/verbs/schema/properties/zz/", as({ action: "delete", json: { type: "string" } }));
    expect(listVerb).toMatchObject({ status: 403, body: { message: "Action delete is not allowed here" } });
    expect((await t.server.request("/api/collections/verbs/schema/properties/zz/", as({ action: "frob", json: {} }))).status).toBe(400);
    expect((await t.server.request("/api/collections/verbs/schema/properties/zz/", as())).status).toBe(404);
  });

  it("a unique index broken by update or upsert says so, as a create does", async () => {
    expect((await t.server.request("/api/collections/", as({ json: { _id: "uniq8", indexes: [{ type: "simple", property: "email", unique: true }] } }))).status).toBe(201);
    for (const [id, email] of [["u1", "a@x"], ["u2", "b@x"]]) await t.server.request("/api/collections/uniq8/documents/", as({ json: { _id: id, email } }));
    for (const action of ["update", "upsert"]) {
      const res = await t.server.request("/api/collections/uniq8/documents/", as({ action, json: { filter: { _id: "u2" }, operation: { $set: { email: "a@x" } } } }));
      expect(res, action).toMatchObject({ status: 409, body: { message: "Document violates a unique index of the collection." } });
    }
  });

  it("a collection _id that is no string is 422 naming _id; none at all is 400", async () => {
    for (const method of ["POST", "PUT"]) {
      for (const id of [123, null, ["a"]]) {
        const res = await t.server.request("/api/collections/", as({ method, json: { _id: id } }));
        expect(res.status, `${method} ${JSON.stringify(id)}`).toBe(422);
        expect(res.body.errors).toEqual([{ property: "_id", message: "must be a string" }]);
      }
      expect((await t.server.request("/api/collections/", as({ method, json: { name: "x" } }))).status).toBe(400);
    }
  });
});

/** Waits until some connection runs a statement starting with `prefix`. */
async function statementRunning(prefix: string) {
  // Inside a transaction pg_stat_activity is a snapshot until cleared.
  const running = "SELECT 1 FROM pg_stat_clear_snapshot(), pg_stat_activity WHERE state = 'active' AND starts_with(query, $1)";
  const deadline = Date.now() + 10_000;
  while (!(await t.db.query(running, [prefix])).rows.length) {
    if (Date.now() > deadline) throw new Error(`no ${prefix} seen running`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("index definitions", () => {
  it("an unknown key, a __proto__ path, the same index twice, a compound naming a property twice or a unique text index is 422 naming it; nothing saved", async () => {
    const cases: [unknown[], { property: string; message: string }][] = [
      [[{ type: "simple", property: "a", extra: 1 }], { property: "indexes.0.extra", message: "is not a key of a simple index" }],
      [[{ type: "simple", property: "a.__proto__" }], { property: "indexes.0.property", message: "must be a property path" }],
      [[{ type: "compound", properties: ["__proto__", "b"] }], { property: "indexes.0.properties", message: "must be an array of property paths" }],
      [[{ type: "simple", property: "a" }, { type: "simple", property: "a", unique: false }], { property: "indexes.1", message: "is the same index as indexes.0" }],
      [[{ type: "compound", properties: ["a", "b", "a"] }], { property: "indexes.0.properties", message: "names a property twice" }],
      // Taken and dropped, it would promise a uniqueness nothing keeps.
      [[{ type: "text", property: "a", unique: true }], { property: "indexes.0.unique", message: "a text index cannot be unique" }],
      // Each index is work for every project's writes (they share the documents table).
      [Array.from({ length: 33 }, (_, i) => ({ type: "simple", property: `p${i}` })), { property: "indexes", message: "at most 32 indexes on a collection" }],
    ];
    for (const [indexes, error] of cases) {
      const res = await t.server.request("/api/collections/indexed-badly/", as({ method: "PUT", json: { indexes } }));
      expect(res.status, JSON.stringify(indexes)).toBe(422);
      expect(res.body.errors).toEqual([error]);
    }
    expect((await t.server.request("/api/collections/indexed-badly/", as())).status).toBe(404);
    // A unique and a plain index on one property are two indexes.
    const both = await t.server.request("/api/collections/indexed-well/", as({ method: "PUT", json: { indexes: [{ type: "simple", property: "a" }, { type: "simple", property: "a", unique: true }, { type: "text", property: "a", language: "en", unique: false }] } }));
    expect(both.status, both.text).toBe(201);
  });
});

describe("patterns in collection schemas (draft 4)", () => {
  it("each schema's pattern is its own (the validator once reused the process's first pattern for all)", async () => {
    const initials = { type: "object", properties: { name: { type: "string", pattern: "^A" } } };
    const codes = { type: "object", properties: { code: { type: "string", pattern: "^[0-9]+$" } } };
    expect((await t.server.request("/api/collections/initials/", as({ method: "PUT", json: { schema: initials } }))).status).toBe(201);
    expect((await t.server.request("/api/collections/codes/", as({ method: "PUT", json: { schema: codes } }))).status).toBe(201);
    expect((await t.server.request(docs("initials"), as({ json: { name: "Ann" } }))).status).toBe(201);
    expect((await t.server.request(docs("initials"), as({ json: { name: "Bob" } }))).status).toBe(422);
    const digits = await t.server.request(docs("codes"), as({ json: { code: "123" } }));
    expect(digits.status, digits.text).toBe(201);
    expect((await t.server.request(docs("codes"), as({ json: { code: "A12" } }))).status).toBe(422);
  });

  it("a schema of more than 1,000 objects or 100 patterns is 422 before it is compiled (5,000 patterns held every project's requests for 16 s)", async () => {
    const properties = (n: number, extra: Record<string, unknown> = {}) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: "string", ...extra }]));
    const wide = await t.server.request("/api/collections/too-wide/", as({ method: "PUT", json: { schema: { type: "object", properties: properties(1000) } } }));
    expect(wide.status).toBe(422);
    expect(wide.body.errors).toEqual([{ property: "schema", message: "has more than 1000 objects (subschemas and their maps): describe repeated shapes once, in definitions or patternProperties" }]);
    const patterned = await t.server.request("/api/collections/too-patterned/", as({ method: "PUT", json: { schema: { type: "object", properties: properties(101, { pattern: "^a" }) } } }));
    expect(patterned.status).toBe(422);
    expect(patterned.body.errors).toEqual([{ property: "schema", message: "has more than 100 patterns (pattern, patternProperties)" }]);
    expect((await t.server.request("/api/collections/too-wide/", as())).status).toBe(404);
    // Within both, with data keywords (enum of objects) not counted as schemas.
    const enumOfObjects = Array.from({ length: 2000 }, (_, i) => ({ v: i }));
    const within = await t.server.request("/api/collections/wide-enough/", as({ method: "PUT", json: { schema: { type: "object", properties: { ...properties(900), ...properties(100, { pattern: "^a" }), e: { enum: enumOfObjects } } } } }));
    expect(within.status, within.text).toBe(201);
  });

  it("a schema may describe _id, as a string: another type is 422 at save (no document could be stored)", async () => {
    for (const type of ["integer", ["number", "null"]]) {
      const res = await t.server.request(`/api/collections/typed-id-${Array.isArray(type) ? "list" : type}/`, as({ method: "PUT", json: { schema: { type: "object", properties: { _id: { type } } } } }));
      expect(res.status, JSON.stringify(type)).toBe(422);
      expect(res.body.errors).toEqual([{ property: "schema.properties._id.type", message: "_id is a string: its type must allow string" }]);
    }
    const named = await t.server.request("/api/collections/typed-id-ok/", as({ method: "PUT", json: { schema: { type: "object", properties: { _id: { type: "string", pattern: "^k" } } } } }));
    expect(named.status, named.text).toBe(201);
    expect((await t.server.request(docs("typed-id-ok"), as({ json: { _id: "k1" } }))).status).toBe(201);
  });

  it("patternProperties: a key a pattern matches is no additional property and must fit the pattern's schema", async () => {
    const schema = { type: "object", properties: { a: { type: "string" } }, patternProperties: { "^x_": { type: "integer" } } };
    expect((await t.server.request("/api/collections/", as({ method: "PUT", json: { _id: "patterned", schema } }))).status).toBe(201);
    const fits = await t.server.request(docs("patterned"), as({ json: { _id: "p1", a: "s", x_1: 1 } }));
    expect(fits.status, fits.text).toBe(201);
    const wrongType = await t.server.request(docs("patterned"), as({ json: { _id: "p2", x_1: "not an integer" } }));
    expect(wrongType.status, wrongType.text).toBe(422);
    expect(wrongType.body.errors).toEqual([{ property: "x_1", message: "must be integer" }]);
    const unmatched = await t.server.request(docs("patterned"), as({ json: { _id: "p3", y: 1 } }));
    expect(unmatched.status).toBe(422);
    expect(unmatched.body.errors).toEqual([{ property: "y", message: "is not allowed by the schema" }]);
  });
});

describe("deleting a collection with indexes while a long statement reads documents", () => {
  it("holds up no other write while its indexes wait for the reader, and they are gone once it is done", async () => {
    expect((await t.server.request("/api/collections/", as({ json: { _id: "indexed-del", indexes: [{ type: "simple", property: "n" }] } }))).status).toBe(201);
    await t.server.request("/api/collections/indexed-del/documents/", as({ json: { _id: "d1", n: 1 } }));
    const other = await ownerWithProject(t.server);
    const indexes = async () => (await t.db.query("SELECT indexname FROM pg_indexes WHERE tablename = 'documents' AND indexdef LIKE $1", [`%project_id = '${t.owner.project}'::text%collection_id = 'indexed-del'::text%`])).rows;
    expect(await indexes()).toHaveLength(2);
    let deleting: Promise<{ status: number; text: string }> | undefined;
    await t.db.query("BEGIN");
    try {
      await t.db.query("SELECT 1 FROM documents LIMIT 1"); // holds the table's share lock until COMMIT
      deleting = t.server.request("/api/collections/indexed-del/", as({ method: "DELETE" }));
      await statementRunning("DROP INDEX CONCURRENTLY");
      // Writes into any collection of any project go on while the drop waits for the reader.
      const write = await t.server.request(docs("elsewhere"), { project: other.project, token: other.token, json: { x: 1 } });
      expect(write.status, write.text).toBe(201);
      const own = await t.server.request(docs("indexed-del-sibling"), as({ json: { x: 1 } }));
      expect(own.status, own.text).toBe(201);
    } finally {
      await t.db.query("COMMIT");
    }
    const deleted = await deleting!;
    expect(deleted.status, deleted.text).toBe(204);
    expect((await t.server.request("/api/collections/indexed-del/", as())).status).toBe(404);
    expect(await indexes()).toEqual([]);
  });
});

describe("building a collection's indexes", () => {
  it("does not stop another project's writes while it runs (the documents table is shared)", async () => {
    // Enough documents that building two indexes over them takes a while.
    await bigCollection(t.server, t.db, as());
    const other = await ownerWithProject(t.server);
    const building = (async () => {
      const res = await t.server.request("/api/collections/big/", as({ method: "PATCH", json: { indexes: [{ type: "simple", property: "tag" }, { type: "simple", property: "n" }] } }));
      return { status: res.status, text: res.text, at: performance.now() };
    })();
    await statementRunning("CREATE INDEX");
    const write = await t.server.request(docs("elsewhere"), { project: other.project, token: other.token, json: { x: 1 } });
    const wroteAt = performance.now();
    expect(write.status, write.text).toBe(201);
    const built = await building;
    expect(built.status, built.text).toBe(200);
    // The other project's write was answered while the build still ran, not after it.
    expect(wroteAt).toBeLessThan(built.at);
    const indexes = await t.db.query(
      "SELECT count(*)::int AS n, bool_and(i.indisvalid) AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname IN (SELECT indexname FROM pg_indexes WHERE indexdef LIKE $1)",
      [`%project_id = '${t.owner.project}'::text%collection_id = 'big'::text%`],
    );
    expect(indexes.rows[0]).toEqual({ n: 4, valid: true });
    const page = await t.server.request(`${docs("big")}?filter=${encodeURIComponent(JSON.stringify({ tag: "t7" }))}&per_page=1`, as());
    expect(page.body.total).toBe(200);
    await t.db.query("DELETE FROM documents WHERE project_id = $1 AND collection_id = 'big'", [t.owner.project]);
  }, 60_000);
});

describe("indexes of collections that are gone", () => {
  it("a deleted project's collection indexes are dropped soon after, other projects' kept", async () => {
    const other = await ownerWithProject(t.server);
    const made = await t.server.request("/api/collections/", { project: other.project, token: other.token, json: { _id: "gone", indexes: [{ type: "simple", property: "a" }] } });
    expect(made.status, made.text).toBe(201);
    expect((await t.server.request("/api/collections/", as({ json: { _id: "kept", indexes: [{ type: "simple", property: "a" }] } }))).status).toBe(201);
    const names = async (project: string, collection: string) =>
      (await t.db.query("SELECT indexname FROM pg_indexes WHERE tablename = 'documents' AND indexdef LIKE $1", [`%project_id = '${project}'::text%collection_id = '${collection}'::text%`])).rows;
    expect(await names(other.project, "gone")).toHaveLength(2);
    expect((await t.server.request(`/api/user/projects/${other.project}/`, { method: "DELETE", session: other.session })).status).toBe(204);
    const deadline = Date.now() + 20_000;
    while ((await names(other.project, "gone")).length) {
      if (Date.now() > deadline) throw new Error("the deleted project's indexes are still there");
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await names(t.owner.project, "kept")).toHaveLength(2);
  }, 30_000);

  it("the sweep drops an index its live collection does not want, once every index it wants is in place", async () => {
    expect((await t.server.request("/api/collections/", as({ json: { _id: "swept", indexes: [{ type: "simple", property: "a", unique: true }] } }))).status).toBe(201);
    const [wanted] = planIndexes(t.owner.project, "swept", [{ type: "simple", property: "a", unique: true }]);
    const stale = `${collectionPrefix(t.owner.project, "swept")}stale`;
    const exists = async (name: string) => (await t.db.query("SELECT 1 FROM pg_class WHERE relname = $1", [name])).rows.length > 0;
    const makeStale = () => t.db.query(`CREATE UNIQUE INDEX "${stale}" ON documents ((data -> 'b')) WHERE project_id = '${t.owner.project}' AND collection_id = 'swept'`);
    // As an older version's index for the same definition: kept while the wanted one is missing.
    await t.db.query(`DROP INDEX "${wanted.name}"`);
    await makeStale();
    await sweepOrphanIndexes();
    expect(await exists(stale)).toBe(true);
    await t.db.query(wanted.statement);
    expect(await sweepOrphanIndexes()).toContain(stale);
    expect(await exists(stale)).toBe(false);
    expect(await exists(wanted.name)).toBe(true);
    // A unique index left by a deleted collection does not refuse writes into one made again.
    await makeStale();
    expect((await t.server.request("/api/collections/swept/", as({ method: "DELETE" }))).status).toBe(204);
    for (const id of ["x1", "x2"]) expect((await t.server.request(docs("swept"), as({ json: { _id: id, b: 1 } }))).status).toBe(201);
  });

  it("the sweep leaves a round out while a collection save holds its lock (a save's new indexes have no collection yet)", async () => {
    const exists = async () => (await t.db.query("SELECT 1 FROM pg_class WHERE relname = 'di_00000000000000ff_orphan'")).rows.length > 0;
    await t.db.query("CREATE INDEX di_00000000000000ff_orphan ON documents ((data -> 'x')) WHERE project_id = 'no such project'");
    await t.db.query(`SELECT pg_advisory_lock_shared(${INDEX_SWEEP_LOCK})`);
    try {
      expect(await sweepOrphanIndexes()).toEqual([]);
      expect(await exists()).toBe(true);
    } finally {
      await t.db.query(`SELECT pg_advisory_unlock_shared(${INDEX_SWEEP_LOCK})`);
    }
    await sweepOrphanIndexes();
    expect(await exists()).toBe(false);
  });
});
