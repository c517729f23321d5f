import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { createToken, ownerWithProject } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/test-server";

let server: TestServer;
let owner: Awaited<ReturnType<typeof ownerWithProject>>;
beforeAll(async () => {
  server = await startTestServer();
  owner = await ownerWithProject(server);
});
afterAll(() => server.close());

const base = "/api/collections/_tokens/documents/";

describe("tokens", () => {
  it("returns the secret once and stores only its hash", async () => {
    const created = await server.request(base, {
      project: owner.project,
      session: owner.session,
      json: { _id: "reader", name: "Reader", permission: { allow: { read: ["posts"] } } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      _id: "reader",
      name: "Reader",
      is_active: true,
      permission: { allow: { all: false, read: ["posts"], write: [], update: [], delete: [] } },
      token: expect.any(String),
    });
    expect(created.body.token.length).toBeGreaterThanOrEqual(22);

    const read = await server.request(`${base}reader/`, { project: owner.project, session: owner.session });
    expect(read.body).not.toHaveProperty("token");
    const list = await server.request(base, { project: owner.project, session: owner.session });
    expect(JSON.stringify(list.body)).not.toContain(created.body.token);

    const db = new pg.Client({ connectionString: inject("databaseUrl") });
    await db.connect();
    const { rows } = await db.query("SELECT secret_hash FROM tokens WHERE project_id = $1 AND id = 'reader'", [owner.project]);
    await db.end();
    expect(rows[0].secret_hash).not.toContain(created.body.token);
    expect(rows[0].secret_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("delete by criteria revokes the tokens the filter selects; update and upsert are 403; unknown verbs 400", async () => {
    const as = { project: owner.project, session: owner.session };
    for (const id of ["gone-1", "gone-2", "kept-1"]) expect((await server.request(base, { ...as, json: { _id: id, name: id } })).status).toBe(201);
    const deleted = await server.request(base, { ...as, action: "delete", json: { payload: { filter: { _id: { $in: ["gone-1", "gone-2", "nobody"] } } } } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ deleted: 2 });
    expect((await server.request(`${base}gone-1/`, as)).status).toBe(404);
    expect((await server.request(`${base}kept-1/`, as)).status).toBe(200);
    // A filter in the URL counts as one: it is never read as "no filter".
    const byUrl = await server.request(`${base}?filter=${encodeURIComponent('{"_id":"nobody"}')}`, { ...as, action: "delete", json: {} });
    expect(byUrl.body).toEqual({ deleted: 0 });
    expect((await server.request(`${base}kept-1/`, as)).status).toBe(200);
    for (const action of ["update", "upsert"]) {
      const res = await server.request(base, { ...as, action, json: { filter: {}, operation: { $set: { name: "x" } } } });
      expect(res.status).toBe(403);
    }
    expect((await server.request(base, { ...as, action: "frob", json: {} })).status).toBe(400);
  });

  it("PUT without an id in the path saves the body's _id or creates one; merge-patch is RFC 7396", async () => {
    const as = { project: owner.project, session: owner.session };
    const created = await server.request(base, { ...as, method: "PUT", json: { _id: "put-body", name: "P", permission: { allow: { read: ["a"] } } } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.token).toEqual(expect.any(String));
    const saved = await server.request(base, { ...as, method: "PUT", json: { _id: "put-body", name: "Q", permission: { allow: { read: ["a"] } } } });
    expect(saved.status).toBe(200);
    expect(saved.body).not.toHaveProperty("token");
    const generated = await server.request(base, { ...as, method: "PUT", json: { name: "gen" } });
    expect(generated.status).toBe(201);
    const merged = await server.request(`${base}put-body/`, {
      ...as, method: "PATCH", body: JSON.stringify({ permission: { allow: { write: ["b"] } }, name: null }), headers: { "content-type": "application/merge-patch+json" },
    });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.permission.allow).toMatchObject({ read: ["a"], write: ["b"] });
    expect(merged.body.name).toBe("");
    // Plain JSON PATCH keeps replacing top-level keys.
    const shallow = await server.request(`${base}put-body/`, { ...as, method: "PATCH", json: { permission: { allow: { write: ["c"] } } } });
    expect(shallow.body.permission.allow).toMatchObject({ read: [], write: ["c"] });
  });

  it("sorts strings by code point, as the SQL lists do (U+FF21 before an emoji)", async () => {
    const other = await ownerWithProject(server);
    const as = { project: other.project, token: other.token };
    for (const [id, name] of [["t-wide", "\uff21 wide"], ["t-emoji", "\u{1f600} emoji"], ["t-plain", "plain"]])
      expect((await server.request(`${base}${id}/`, { ...as, method: "PUT", json: { name, permission: { allow: { read: ["x"] } } } })).status).toBe(201);
    const sorted = await server.request(`${base}?sort=name&filter=${encodeURIComponent('{"_id":{"$in":["t-wide","t-emoji","t-plain"]}}')}`, as);
    expect(sorted.body.items.map((t: { _id: string }) => t._id)).toEqual(["t-plain", "t-wide", "t-emoji"]);
  });

  it("normalises the legacy flat form and the create alias", async () => {
    const created = await server.request(base, {
      project: owner.project,
      token: owner.token,
      json: { name: "legacy", permission: { read: ["a"], create: ["b"], all: false } },
    });
    expect(created.status).toBe(201);
    expect(created.body.permission).toEqual({ allow: { all: false, read: ["a"], write: ["b"], update: [], delete: [] } });
  });

  it("takes the original service's documented token as written: {what} alone for every collection, {what: collection, what_id} for one", async () => {
    // The "Token properties" example of Deform's tokens documentation, verbatim.
    const permission = {
      allow: {
        create: [{ what: "document", where: "venues" }, { what: "collection" }],
        delete: [{ what: "document", where: "venues", what_id: "removeable-cafe" }, { what: "collection", what_id: "removable-collection" }],
        read: [{ what: "document", where: "read-only-collection" }, { what: "collection" }],
        update: [{ what: "document" }, { what: "collection", what_id: "update-only-collection" }],
      },
    };
    const made = await server.request(base, { project: owner.project, token: owner.token, json: { name: "token-35567587", is_active: true, permission } });
    expect(made.status, made.text).toBe(201);
    const { create, ...rest } = permission.allow;
    expect(made.body.permission).toEqual({ allow: { all: false, write: create, ...rest } });
    const as = { project: owner.project, token: made.body.token as string };
    await server.request("/api/collections/anywhere/documents/", { project: owner.project, token: owner.token, json: { _id: "a1", n: 1 } });
    expect((await server.request("/api/collections/anywhere/documents/a1/", as)).status).toBe(200);
    expect((await server.request("/api/collections/anywhere/documents/a1/", { ...as, method: "PATCH", json: { n: 2 } })).status).toBe(200);
    expect((await server.request("/api/collections/anywhere/documents/a1/", { ...as, method: "DELETE" })).status).toBe(403);
    expect((await server.request("/api/collections/removable-collection/documents/", { ...as, action: "delete", json: {} })).status).toBe(404);
  });

  it("refuses malformed permissions with 422", async () => {
    const response = await server.request(base, {
      project: owner.project,
      token: owner.token,
      json: { name: "bad", permission: { allow: { read: "posts" } } },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors[0].property).toBe("permission");
    // Nothing sent is dropped: keys beside `allow`, unknown keys of an element, an empty what_id.
    const refused: [unknown, string][] = [
      [{ allow: { read: ["c1"] }, write: ["c1"] }, 'permission mixes the allow form and the flat form ("write"): use one'],
      [{ allow: { read: ["c1"] }, foo: 1 }, 'Unknown permission "foo"'],
      [{ allow: { read: [{ what: "document", where: "c1", id: "d1" }] } }, "permission.allow.read entries"],
      [{ allow: { read: [{ what: "document", where: "c1", what_id: "" }] } }, "permission.allow.read entries"],
      [{ allow: { read: [{ what: "document", where: "c1", what_id: 7 }] } }, "permission.allow.read entries"],
      // A document without its collection names nothing.
      [{ allow: { read: [{ what: "document", what_id: "d1" }] } }, "permission.allow.read entries"],
      [{ allow: { read: [{ what: "document", where: "" }] } }, "permission.allow.read entries"],
    ];
    for (const [permission, message] of refused) {
      const res = await server.request(base, { project: owner.project, token: owner.token, json: { name: "bad", permission } });
      expect(res.status, JSON.stringify(permission)).toBe(422);
      expect(res.body.errors[0].message).toContain(message);
    }
    // A name says what is wrong with it.
    const long = await server.request(base, { project: owner.project, token: owner.token, json: { name: "n".repeat(201), permission: { allow: { all: true } } } });
    expect(long.body.errors).toEqual([{ property: "name", message: "must be at most 200 characters" }]);
    const number = await server.request(base, { project: owner.project, token: owner.token, json: { name: 7, permission: { allow: { all: true } } } });
    expect(number.body.errors).toEqual([{ property: "name", message: "must be a string" }]);
  });

  it("a {what: collection} element with what_id grants that one document, not the collection", async () => {
    await server.request("/api/collections/wid/documents/", { project: owner.project, token: owner.token, json: { _id: "d1" } });
    await server.request("/api/collections/wid/documents/", { project: owner.project, token: owner.token, json: { _id: "d2" } });
    const made = await server.request(base, { project: owner.project, token: owner.token, json: { name: "one", permission: { allow: { read: [{ what: "collection", where: "wid", what_id: "d1" }] } } } });
    expect(made.status, made.text).toBe(201);
    expect(made.body.permission.allow.read).toEqual([{ what: "collection", where: "wid", what_id: "d1" }]);
    expect((await server.request("/api/collections/wid/documents/d1/", { project: owner.project, token: made.body.token })).status).toBe(200);
    expect((await server.request("/api/collections/wid/documents/d2/", { project: owner.project, token: made.body.token })).status).toBe(403);
  });

  it("a key that is a live token's secret is taken (409), so no record shows a secret or takes its requests", async () => {
    const victim = await server.request(base, { project: owner.project, token: owner.token, json: { _id: "victim", name: "victim" } });
    const secret = victim.body.token;
    for (const [path, json] of [[`${base}${secret}/`, { name: "shadow" }], [base, { _id: secret, name: "shadow" }]] as const) {
      const res = await server.request(path, { project: owner.project, token: owner.token, json });
      expect(res.status, res.text).toBe(409);
    }
    const list = await server.request(base, { project: owner.project, token: owner.token });
    expect(JSON.stringify(list.body)).not.toContain(secret);
    expect((await server.request(`${base}${secret}/`, { project: owner.project, token: owner.token })).body.name).toBe("victim");
  });

  it("a body _id other than the path's is 422 naming _id, as for documents", async () => {
    await server.request(base, { project: owner.project, token: owner.token, json: { _id: "pathed", name: "p" } });
    const cases: [string, string, unknown, string][] = [
      ["PUT", `${base}pathed/`, { _id: "other", name: "p" }, "must match the id in the path"],
      ["PATCH", `${base}pathed/`, { _id: "other" }, "cannot be changed"],
      ["POST", `${base}fresh/`, { _id: "other" }, "must match the id in the path"],
      ["POST", base, { _id: 5, name: "n" }, "must be 1-64 of A-Z a-z 0-9 _ . @ -"],
      ["PUT", base, { _id: 5, name: "n" }, "must be 1-64 of A-Z a-z 0-9 _ . @ -"],
    ];
    for (const [method, path, json, message] of cases) {
      const res = await server.request(path, { method, project: owner.project, token: owner.token, json });
      expect(res.status, `${method} ${path} ${res.text}`).toBe(422);
      expect(res.body.errors).toEqual([{ property: "_id", message }]);
    }
    expect((await server.request(`${base}fresh/`, { project: owner.project, token: owner.token })).status).toBe(404);
    // The record read back (its own _id) saves as before.
    const read = await server.request(`${base}pathed/`, { project: owner.project, token: owner.token });
    expect((await server.request(`${base}pathed/`, { method: "PUT", project: owner.project, token: owner.token, json: { ...read.body, name: "again" } })).status).toBe(200);

    // Addressed by its secret, a token takes the path's key as `_id` (what a read through it shows)
    // and nothing else: its real id is 422 like any other, so a write never tells which id a secret has.
    const { body: made } = await server.request(base, { project: owner.project, token: owner.token, json: { _id: "hidden", name: "h" } });
    const bySecret = `${base}${made.token}/`;
    expect((await server.request(bySecret, { project: owner.project, token: owner.token })).body._id).toBe(made.token);
    for (const method of ["PATCH", "PUT"]) {
      for (const _id of ["hidden", "some-other-id"]) {
        const res = await server.request(bySecret, { method, project: owner.project, token: owner.token, json: { _id, name: "n" } });
        expect(res.status, `${method} ${_id} ${res.text}`).toBe(422);
        expect(res.body.errors[0].property).toBe("_id");
      }
      const same = await server.request(bySecret, { method, project: owner.project, token: owner.token, json: { _id: made.token, name: "n" } });
      expect(same.status, same.text).toBe(200);
      expect(same.body._id).toBe(made.token);
    }
  });

  it("a deactivated token gets 401, a deleted one too", async () => {
    const created = await server.request(base, { project: owner.project, session: owner.session, json: { _id: "temp", permission: { allow: { all: true } } } });
    const secret = created.body.token;
    const off = await server.request(`${base}temp/`, { method: "PATCH", project: owner.project, session: owner.session, json: { is_active: false } });
    expect(off.body.is_active).toBe(false);
    expect((await server.request("/api/collections/", { project: owner.project, token: secret })).status).toBe(401);
    await server.request(`${base}temp/`, { method: "PATCH", project: owner.project, session: owner.session, json: { is_active: true } });
    expect((await server.request("/api/collections/", { project: owner.project, token: secret })).status).toBe(200);
    expect((await server.request(`${base}temp/`, { method: "DELETE", project: owner.project, session: owner.session })).status).toBe(204);
    expect((await server.request("/api/collections/", { project: owner.project, token: secret })).status).toBe(401);
    expect((await server.request(`${base}temp/`, { method: "DELETE", project: owner.project, session: owner.session })).status).toBe(404);
  });

  it("a token without `all` cannot manage tokens (403)", async () => {
    const limited = await createToken(server, owner.session, owner.project, { allow: { read: ["posts"] } });
    const list = await server.request(base, { project: owner.project, token: limited });
    expect(list.status).toBe(403);
    const create = await server.request(base, { project: owner.project, token: limited, json: { name: "escalate", permission: { allow: { all: true } } } });
    expect(create.status).toBe(403);
  });

  it("a token that manages tokens grants only what it holds itself (no escalation)", async () => {
    const manager = await createToken(server, owner.session, owner.project, { allow: { read: ["posts", { what: "document", where: "notes", what_id: "n1" }], write: ["_tokens"], update: ["_tokens"] } });
    const as = { project: owner.project, token: manager };
    const refused: unknown[] = [
      { allow: { all: true } },
      { allow: { read: ["secrets"] } },
      { allow: { read: ["notes"] } },
      { allow: { read: [{ what: "document", where: "notes", what_id: "n2" }] } },
      { allow: { delete: ["posts"] } },
    ];
    for (const permission of refused) {
      const res = await server.request(base, { ...as, json: { name: "wider", permission } });
      expect(res.status, JSON.stringify(permission)).toBe(403);
      expect(res.body.message).toBe("A token cannot grant more than it holds");
    }
    const within = await server.request(base, { ...as, json: { _id: "narrow", name: "narrow", permission: { allow: { read: ["posts", { what: "document", where: "notes", what_id: "n1" }] } } } });
    expect(within.status, within.text).toBe(201);
    // Nor can it widen a token, itself included; renaming is no grant.
    const widen = await server.request(`${base}narrow/`, { ...as, method: "PATCH", json: { permission: { allow: { all: true } } } });
    expect(widen.status).toBe(403);
    const self = await server.request(`${base}${manager}/`, { ...as, method: "PATCH", json: { permission: { allow: { all: true } } } });
    expect(self.status).toBe(403);
    expect((await server.request(`${base}narrow/`, { ...as, method: "PATCH", json: { name: "renamed" } })).status).toBe(200);
    await server.request(base, { project: owner.project, token: owner.token, json: { _id: "wide", name: "wide", permission: { allow: { all: true } } } });
    expect((await server.request(`${base}wide/`, { ...as, method: "PATCH", json: { name: "renamed wide" } })).status).toBe(200);
    // Deactivating a wider token narrows; turning it back on is a grant.
    expect((await server.request(`${base}wide/`, { ...as, method: "PATCH", json: { is_active: false } })).status).toBe(200);
    expect((await server.request(`${base}wide/`, { ...as, method: "PATCH", json: { is_active: true } })).status).toBe(403);
    expect((await server.request(`${base}wide/`, { project: owner.project, token: owner.token })).body.is_active).toBe(false);
    // A person who manages tokens (owner, admin) is not bound by a token's rights.
    expect((await server.request(base, { project: owner.project, session: owner.session, json: { name: "by owner", permission: { allow: { all: true } } } })).status).toBe(201);
  });

  it("a taken id is 409, an unknown id is 404", async () => {
    await server.request(base, { project: owner.project, token: owner.token, json: { _id: "dup" } });
    const again = await server.request(base, { project: owner.project, token: owner.token, json: { _id: "dup" } });
    expect(again.status).toBe(409);
    expect((await server.request(`${base}nope/`, { project: owner.project, token: owner.token })).status).toBe(404);
  });

  it("a token of project A gets nothing of project B", async () => {
    const other = await ownerWithProject(server);
    for (const [method, path] of [
      ["GET", "/api/info/"],
      ["GET", base],
      ["POST", base],
      ["GET", `${base}reader/`],
      ["DELETE", `${base}reader/`],
    ]) {
      const response = await server.request(path, { method, project: other.project, token: owner.token, json: method === "POST" ? {} : undefined });
      expect(response.status, `${method} ${path}`).toBe(401);
    }
    // A session of A's owner is known but not a member of B: 403.
    expect((await server.request("/api/info/", { project: other.project, session: owner.session })).status).toBe(403);
  });
});
