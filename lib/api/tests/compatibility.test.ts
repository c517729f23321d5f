import { describe, expect, it } from "vitest";
import { createProject, createToken, ownerWithProject } from "../../testing/fixtures";
import { apiSuite } from "../../testing/api-suite";

/**
 * Clients of the original service work unchanged (issue 10; CONTRACT §3, §4, §5, §9): the shapes
 * and statuses they rely on. Changed behaviours are tested where they were (documents.test.ts,
 * collections.test.ts); the new ones are here.
 */
const t = apiSuite();

const docs = (collection: string) => `/api/collections/${collection}/documents/`;
const as = (extra: Record<string, unknown> = {}) => ({ project: t.owner.project, token: t.owner.token, ...extra });
const DEFAULT_SCHEMA = { type: "object", properties: {}, additionalProperties: true };

describe("PUT without an id in the path", () => {
  it("documents: `_id` in the body saves it (201 then 200), none creates (201), the collection made when missing", async () => {
    const created = await t.server.request(docs("put-bare"), as({ method: "PUT", json: { _id: "x1", v: 1 } }));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({ _id: "x1", v: 1 });
    const replaced = await t.server.request(docs("put-bare"), as({ method: "PUT", json: { _id: "x1", w: 2 } }));
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({ _id: "x1", w: 2 });
    const generated = await t.server.request(docs("put-bare"), as({ method: "PUT", json: { v: 3 } }));
    expect(generated.status).toBe(201);
    expect(generated.body).toEqual({ _id: expect.stringMatching(/^[0-9a-f]{24}$/), v: 3 });
    expect((await t.server.request("/api/collections/put-bare/", as())).body.documents_count).toBe(2);
    const bad = await t.server.request(docs("put-bare"), as({ method: "PUT", json: { _id: "has space" } }));
    expect(bad.status).toBe(422);
  });

  it("documents: a token that may only update gets 403 creating, 200 replacing", async () => {
    await t.server.request(docs("put-rights"), as({ json: { _id: "there", v: 1 } }));
    const updater = await createToken(t.server, t.owner.session, t.owner.project, { allow: { update: ["put-rights"], read: ["put-rights"] } });
    const creating = await t.server.request(docs("put-rights"), { project: t.owner.project, token: updater, method: "PUT", json: { _id: "new", v: 1 } });
    expect(creating.status).toBe(403);
    const generated = await t.server.request(docs("put-rights"), { project: t.owner.project, token: updater, method: "PUT", json: { v: 1 } });
    expect(generated.status).toBe(403);
    const replacing = await t.server.request(docs("put-rights"), { project: t.owner.project, token: updater, method: "PUT", json: { _id: "there", v: 2 } });
    expect(replacing.status, replacing.text).toBe(200);
  });

  it("collections: `_id` in the body saves it (201 then 200); without `_id` 400", async () => {
    const created = await t.server.request("/api/collections/", as({ method: "PUT", json: { _id: "saved", name: "Saved" } }));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ _id: "saved", name: "Saved", schema: DEFAULT_SCHEMA });
    const replaced = await t.server.request("/api/collections/", as({ method: "PUT", json: { _id: "saved", name: "Again" } }));
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ _id: "saved", name: "Again" });
    expect((await t.server.request("/api/collections/", as({ method: "PUT", json: { name: "none" } }))).status).toBe(400);
    expect((await t.server.request("/api/collections/", as({ method: "PUT", json: { _id: "_files" } }))).status).toBe(403);
  });
});

describe("collection property paths", () => {
  it("GET, PUT (201 absent / 200 replaced, answering the value), PATCH, DELETE at any depth; 404 message", async () => {
    await t.server.request(docs("deep"), as({ json: { _id: "d1", title: "t" } }));
    const path = "/api/collections/deep/schema/properties/title/";
    const missing = await t.server.request(path, as());
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: "Collection property not found." });
    const created = await t.server.request(path, as({ method: "PUT", json: { type: "string", required: true } }));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({ type: "string", required: true });
    const read = await t.server.request(path, as());
    expect(read.body).toEqual({ type: "string", required: true });
    // The default schema was the base: other properties stay allowed; the new rule applies at once.
    expect((await t.server.request(docs("deep"), as({ json: { other: 1 } }))).status).toBe(422);
    expect((await t.server.request(docs("deep"), as({ json: { title: "ok", other: 1 } }))).status).toBe(201);
    const replaced = await t.server.request(path, as({ method: "PUT", json: { type: "string" } }));
    expect(replaced.status).toBe(200);
    const patched = await t.server.request(path, as({ method: "PATCH", json: { maxLength: 3 } }));
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toEqual({ type: "string", maxLength: 3 });
    expect((await t.server.request(`${path}maxLength/`, as())).body).toBe(3);
    expect((await t.server.request(docs("deep"), as({ json: { title: "long" } }))).status).toBe(422);
    const deleted = await t.server.request(path, as({ method: "DELETE" }));
    expect(deleted.status).toBe(204);
    expect((await t.server.request("/api/collections/deep/schema/", as())).body).toEqual(DEFAULT_SCHEMA);
    expect((await t.server.request(path, as({ method: "DELETE" }))).body).toEqual({ message: "Collection property not found." });
    expect((await t.server.request(path, as({ method: "PATCH", json: {} }))).body).toEqual({ message: "Collection property not found." });
    expect((await t.server.request("/api/collections/deep/name/", as({ method: "PUT", json: "Deep" }))).body).toBe("Deep");
    expect((await t.server.request("/api/collections/deep/", as())).body.name).toBe("Deep");
  });

  it("POST creates a property (201), 409 when it exists; the definition is validated like any save", async () => {
    await t.server.request("/api/collections/", as({ json: { _id: "posted" } }));
    const path = "/api/collections/posted/schema/properties/n/";
    const created = await t.server.request(path, as({ json: { type: "integer" } }));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({ type: "integer" });
    const again = await t.server.request(path, as({ json: { type: "string" } }));
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: "Collection property already exists." });
    expect((await t.server.request(path, as())).body).toEqual({ type: "integer" });
    expect((await t.server.request(docs("posted"), as({ json: { n: "text" } }))).status).toBe(422);
    expect((await t.server.request("/api/collections/posted/schema/type/", as({ json: 7 }))).status).toBe(409);
    expect((await t.server.request("/api/collections/posted/documents_count/", as({ json: 7 }))).status).toBe(422);
    expect((await t.server.request("/api/collections/ghost/description/", as({ json: "x" }))).status).toBe(404);
  });

  it("refuses what cannot change: 422 for server keys and bad schemas, 403 on system collections, 404 on missing ones", async () => {
    await t.server.request("/api/collections/", as({ json: { _id: "fixed" } }));
    expect((await t.server.request("/api/collections/fixed/documents_count/", as({ method: "PUT", json: 5 }))).status).toBe(422);
    expect((await t.server.request("/api/collections/fixed/_id/", as({ method: "PUT", json: "other" }))).status).toBe(422);
    expect((await t.server.request("/api/collections/fixed/schema/type/", as({ method: "PUT", json: 7 }))).status).toBe(422);
    expect((await t.server.request("/api/collections/_users/schema/properties/x/", as({ method: "PUT", json: {} }))).status).toBe(403);
    expect((await t.server.request("/api/collections/ghost/schema/properties/x/", as({ method: "PUT", json: {} }))).body).toEqual({ message: "Collection not found." });
    const reader = await createToken(t.server, t.owner.session, t.owner.project, { allow: { read: ["fixed"] } });
    expect((await t.server.request("/api/collections/fixed/name/", { project: t.owner.project, token: reader, method: "PUT", json: "x" })).status).toBe(403);
  });
});

describe("cross-project", () => {
  it("collection property paths and PUT without an id never reach another project", async () => {
    const b = await ownerWithProject(t.server);
    await t.server.request("/api/collections/", { project: b.project, token: b.token, json: { _id: "theirs", name: "Theirs" } });
    expect((await t.server.request("/api/collections/theirs/name/", as())).body).toEqual({ message: "Collection not found." });
    expect((await t.server.request("/api/collections/theirs/name/", as({ method: "PUT", json: "mine" }))).status).toBe(404);
    expect((await t.server.request("/api/collections/theirs/name/", { project: b.project, token: t.owner.token, method: "PUT", json: "mine" })).status).toBe(401);
    expect((await t.server.request(docs("theirs"), { project: b.project, token: t.owner.token, method: "PUT", json: { _id: "x" } })).status).toBe(401);
    expect((await t.server.request("/api/collections/theirs/name/", { project: b.project, token: b.token })).body).toBe("Theirs");
  });
});

describe("default schema", () => {
  it("a collection made without one (explicitly or by a document write) shows it and accepts any document; saving it back keeps it", async () => {
    await t.server.request("/api/collections/", as({ json: { _id: "plain" } }));
    expect((await t.server.request("/api/collections/plain/", as())).body.schema).toEqual(DEFAULT_SCHEMA);
    expect((await t.server.request(docs("plain"), as({ json: { anything: { goes: [1] } } }))).status).toBe(201);
    await t.server.request(docs("implicit"), as({ json: { a: 1 } }));
    const implicit = await t.server.request("/api/collections/implicit/", as());
    expect(implicit.body.schema).toEqual(DEFAULT_SCHEMA);
    const saved = await t.server.request("/api/collections/implicit/", as({ method: "PUT", json: implicit.body }));
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.schema).toEqual(DEFAULT_SCHEMA);
    expect((await t.server.request(docs("implicit"), as({ json: { b: "x" } }))).status).toBe(201);
  });
});

describe("system collections", () => {
  it("have display names and schemas, readable like any collection's, found by filter and text", async () => {
    const list = await t.server.request("/api/collections/?per_page=1000", as());
    const names = Object.fromEntries(list.body.items.filter((c: any) => c.is_system).map((c: any) => [c._id, c.name]));
    expect(names).toEqual({
      _files: "Files",
      _users: "Users",
      _notification: "Notifications",
      _usage: "Usage",
      _debug: "Debug",
      _tokens: "Tokens",
      _hooks: "Hooks",
      _hooks_history: "Hooks history",
    });
    const users = await t.server.request("/api/collections/_users/", as());
    expect(users.body.schema.properties.is_active).toEqual({ type: "boolean", required: true });
    expect(Object.keys(users.body.schema.properties)).toEqual(expect.arrayContaining(["_id", "role", "date_joined"]));
    expect((await t.server.request("/api/collections/_users/schema/properties/is_active/", as())).body).toEqual({ type: "boolean", required: true });
    // The schema describes the records as they are, a pending invitation's included.
    await t.server.request("/api/collections/_users/documents/", as({ json: { _id: `pending-${Date.now()}@example.com` } }));
    const members = (await t.server.request("/api/collections/_users/documents/", as())).body.items as Record<string, unknown>[];
    expect(members.some((m) => m.date_joined === null)).toBe(true);
    for (const member of members) for (const key of Object.keys(member)) expect(Object.keys(users.body.schema.properties)).toContain(key);
    const files = await t.server.request("/api/collections/_files/schema/properties/", as());
    expect(Object.keys(files.body).sort()).toEqual(["_id", "collection_id", "content_type", "date_created", "document_id", "last_access", "md5", "name", "size"]);
    expect(Object.keys((await t.server.request("/api/collections/_hooks_history/", as())).body.schema.properties)).toContain("id");
    // A hook without conditions holds null there, and the schema says so.
    expect((await t.server.request("/api/collections/_hooks/schema/properties/conditions/", as())).body.type).toEqual(["object", "null"]);
    expect(Object.keys((await t.server.request("/api/collections/_tokens/", as())).body.schema.properties)).toEqual(["_id", "name", "is_active", "permission"]);
    expect((await t.server.request("/api/collections/_notifications/", as())).body.name).toBe("Notifications");
    const byFilter = await t.server.request("/api/collections/", as({ action: "find", json: { filter: { name: "Hooks history" } } }));
    expect(byFilter.body.items.map((c: any) => c._id)).toEqual(["_hooks_history"]);
    const byText = await t.server.request("/api/collections/?text=usage", as());
    expect(byText.body.items.map((c: any) => c._id)).toEqual(["_usage"]);
  });
});

describe("PATCH bodies", () => {
  it("multipart PATCH replaces top-level keys too", async () => {
    await t.server.request(docs("mp-patch"), as({ json: { _id: "m", a: { x: 1, y: 2 }, keep: 1 } }));
    const body = new FormData();
    body.append("a", '{"x":5}');
    const patched = await t.server.request(`${docs("mp-patch")}m/`, as({ method: "PATCH", body }));
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toEqual({ _id: "m", a: { x: 5 }, keep: 1 });
    const withFile = new FormData();
    withFile.append("a", '{"z":1}');
    withFile.append("doc", new Blob(["hello"]), "hello.txt");
    const uploaded = await t.server.request(`${docs("mp-patch")}m/`, as({ method: "PATCH", body: withFile }));
    expect(uploaded.status, uploaded.text).toBe(200);
    expect(uploaded.body).toMatchObject({ _id: "m", a: { z: 1 }, keep: 1, doc: { name: "hello.txt" } });
  });
});

describe("document property PUT with a file part", () => {
  it("answers the file record, 201 when the property was absent, 200 when replaced", async () => {
    await t.server.request(docs("prop-file"), as({ json: { _id: "p" } }));
    const part = (text: string, name: string) => {
      const body = new FormData();
      body.append("file", new Blob([text]), name);
      return body;
    };
    const first = await t.server.request(`${docs("prop-file")}p/meta/doc/`, as({ method: "PUT", body: part("one", "one.txt") }));
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ name: "one.txt", size: 3, collection_id: "prop-file", document_id: "p" });
    const second = await t.server.request(`${docs("prop-file")}p/meta/doc/`, as({ method: "PUT", body: part("second", "two.txt") }));
    expect(second.status, second.text).toBe(200);
    expect(second.body).toMatchObject({ name: "two.txt", size: 6 });
    expect((await t.server.request(`${docs("prop-file")}p/meta/doc/content/`, as())).text).toBe("second");
  });
});

describe("_files lists and actions", () => {
  it("find filters over the records; delete by criteria removes records, bytes and properties; update/upsert 403", async () => {
    const upload = (name: string, text: string) => {
      const body = new FormData();
      body.append("file", new Blob([text]), name);
      return t.server.request(docs("_files"), as({ body }));
    };
    const kept = await upload("kept.txt", "kept bytes");
    const gone = await upload("gone.txt", "gone bytes!");
    expect(gone.status, gone.text).toBe(201);
    const onDoc = new FormData();
    onDoc.append("_id", '"holder"');
    onDoc.append("attachment", new Blob(["attached"]), "gone-too.txt");
    const holder = await t.server.request(docs("held"), as({ body: onDoc }));
    expect(holder.status, holder.text).toBe(201);

    const found = await t.server.request(`${docs("_files")}?sort=name`, as({ action: "find", json: { filter: { name: { $regex: "^gone" } } } }));
    expect(found.status, found.text).toBe(200);
    expect(found.body.items.map((f: any) => f.name)).toEqual(["gone-too.txt", "gone.txt"]);
    const bySize = await t.server.request(`${docs("_files")}?filter=${encodeURIComponent(JSON.stringify({ size: 10 }))}`, as());
    expect(bySize.body.items.map((f: any) => f._id)).toEqual([kept.body._id]);

    expect((await t.server.request(docs("_files"), as({ action: "update", json: { filter: {}, operation: { $set: { name: "x" } } } }))).status).toBe(403);
    expect((await t.server.request(docs("_files"), as({ action: "upsert", json: { filter: {}, operation: { $set: { name: "x" } } } }))).status).toBe(403);

    const deleted = await t.server.request(docs("_files"), as({ action: "delete", json: { payload: { filter: { name: { $in: ["gone.txt", "gone-too.txt"] } } } } }));
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ deleted: 2 });
    expect((await t.server.request(`${docs("_files")}${gone.body._id}/content/`, as())).status).toBe(404);
    expect((await t.server.request(`${docs("held")}holder/`, as())).body).toEqual({ _id: "holder" });
    const { rows } = await t.db.query(
      "SELECT p.files_size::bigint AS size, (SELECT coalesce(sum(size), 0) FROM files WHERE project_id = p.project_id)::bigint AS actual FROM project_totals p WHERE project_id = $1",
      [t.owner.project],
    );
    expect(Number(rows[0].size)).toBe(Number(rows[0].actual));
    expect((await t.server.request(`${docs("_files")}${kept.body._id}/content/`, as())).text).toBe("kept bytes");
    const reader = await createToken(t.server, t.owner.session, t.owner.project, { allow: { read: ["_files"] } });
    expect((await t.server.request(docs("_files"), { project: t.owner.project, token: reader, action: "delete", json: {} })).status).toBe(403);
    expect((await t.server.request(docs("_files"), as({ action: "delete", json: { filter: [] } }))).status).toBe(400);
  });
});

describe("_tokens", () => {
  const tokens = docs("_tokens");
  const owner = () => ({ project: t.owner.project, session: t.owner.session });

  it("{what, where} without what_id covers the whole collection", async () => {
    await t.server.request(docs("covered"), as({ json: { _id: "c1", v: 1 } }));
    const created = await t.server.request(tokens, { ...owner(), json: { name: "w", permission: { allow: { read: [{ what: "document", where: "covered" }] } } } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.permission.allow.read).toEqual([{ what: "document", where: "covered" }]);
    const secret = created.body.token;
    expect((await t.server.request(`${docs("covered")}c1/`, { project: t.owner.project, token: secret })).status).toBe(200);
    expect((await t.server.request(docs("covered"), { project: t.owner.project, token: secret })).body.total).toBe(1);
    expect((await t.server.request(docs("elsewhere"), { project: t.owner.project, token: secret })).status).toBe(403);
    const bad = await t.server.request(tokens, { ...owner(), json: { permission: { allow: { read: [{ what: "row", where: "covered" }] } } } });
    expect(bad.status).toBe(422);
  });

  it("is addressed by its secret (GET, PATCH, DELETE), works at once and stops when is_active goes false", async () => {
    const created = await t.server.request(tokens, { ...owner(), json: { _id: "by-secret", name: "S", permission: { allow: { all: true } } } });
    const secret: string = created.body.token;
    expect(secret.length).toBeGreaterThanOrEqual(22);
    expect((await t.server.request(docs("anything"), { project: t.owner.project, token: secret, json: { a: 1 } })).status).toBe(201);
    const read = await t.server.request(`${tokens}${secret}/`, owner());
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual({ _id: secret, name: "S", is_active: true, permission: { allow: { all: true, read: [], write: [], update: [], delete: [] } } });
    expect(read.body.token).toBeUndefined();
    // The token itself can look itself up (it has `all`).
    expect((await t.server.request(`${tokens}${secret}/`, { project: t.owner.project, token: secret })).body._id).toBe(secret);
    const off = await t.server.request(`${tokens}${secret}/`, { ...owner(), method: "PATCH", json: { is_active: false } });
    expect(off.status, off.text).toBe(200);
    expect(off.body).toMatchObject({ _id: secret, is_active: false });
    // Refused right after the narrowing write, although the token was just used (auth cache).
    expect((await t.server.request(docs("anything"), { project: t.owner.project, token: secret })).status).toBe(401);
    expect((await t.server.request(`${tokens}by-secret/`, owner())).body.is_active).toBe(false);
    const list = await t.server.request(tokens, owner());
    expect(JSON.stringify(list.body)).not.toContain(secret);
    expect((await t.server.request(`${tokens}${secret}/`, { ...owner(), method: "DELETE" })).status).toBe(204);
    expect((await t.server.request(`${tokens}by-secret/`, owner())).status).toBe(404);
    expect((await t.server.request(`${tokens}${secret}/`, owner())).body).toEqual({ message: "Document not found." });
  });

  it("another project's secret addresses nothing", async () => {
    const other = await createProject(t.server, t.owner.session);
    const foreign = await t.server.request(tokens, { project: other, session: t.owner.session, json: { name: "f" } });
    expect(foreign.status, foreign.text).toBe(201);
    expect((await t.server.request(`${tokens}${foreign.body.token}/`, owner())).status).toBe(404);
  });
});

describe("total sort", () => {
  it("pages over many equal sort keys never repeat or skip (documents, in SQL)", async () => {
    await Promise.all(Array.from({ length: 45 }, (_, i) => t.server.request(docs("ties"), as({ json: { _id: `t${String(i).padStart(2, "0")}`, group: i % 2 === 0 ? "a" : "b", nested: { same: 1 } } }))));
    for (const sort of ["group", "-group", "nested", "nested.same", "-nested.same,group"]) {
      const seen: string[] = [];
      for (let page = 1; page <= 5; page++) {
        const got = await t.server.request(`${docs("ties")}?sort=${sort}&per_page=10&page=${page}`, as());
        seen.push(...got.body.items.map((d: any) => d._id));
      }
      expect(new Set(seen).size, sort).toBe(45);
      expect(seen.length).toBe(45);
    }
    const byGroup = await t.server.request(`${docs("ties")}?sort=-group&per_page=3`, as());
    expect(byGroup.body.items.map((d: any) => d._id)).toEqual(["t01", "t03", "t05"]);
  });

  it("in-memory lists (system collections, collections) break ties by _id too", async () => {
    for (let i = 0; i < 12; i++) await t.server.request(tokens(), { project: t.owner.project, session: t.owner.session, json: { _id: `tie-${String(i).padStart(2, "0")}`, name: "same" } });
    const seen: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const got = await t.server.request(`${tokens()}?sort=name&per_page=4&page=${page}&filter=${encodeURIComponent('{"name":"same"}')}`, { project: t.owner.project, session: t.owner.session });
      seen.push(...got.body.items.map((d: any) => d._id));
    }
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => `tie-${String(i).padStart(2, "0")}`));
    for (let i = 0; i < 6; i++) await t.server.request("/api/collections/", as({ json: { _id: `tied-${i}`, name: "Tied", schema: { type: "object", properties: { p: { type: "string" } } } } }));
    const collections: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const got = await t.server.request(`/api/collections/?sort=-schema,name&per_page=2&page=${page}&filter=${encodeURIComponent('{"name":"Tied"}')}`, as());
      collections.push(...got.body.items.map((c: any) => c._id));
    }
    expect(collections).toEqual(["tied-0", "tied-1", "tied-2", "tied-3", "tied-4", "tied-5"]);
  });
});

function tokens() {
  return docs("_tokens");
}
