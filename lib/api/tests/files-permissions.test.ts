import { describe, expect, it } from "vitest";
import { apiSuite } from "../../testing/api-suite";
import { createToken } from "../../testing/fixtures";

/** Who may upload into `_files`: refused before the body is streamed to disk. */
const t = apiSuite();

function form(text: string) {
  const body = new FormData();
  body.append("file", new Blob([text], { type: "text/plain" }), "f.txt");
  return body;
}

describe("_files permissions", () => {
  it("a read-only token cannot upload, by POST or PUT", async () => {
    const reader = await createToken(t.server, t.owner.session, t.owner.project, { allow: { read: ["_files"] } });
    const as = { project: t.owner.project, token: reader };
    const post = await t.server.request("/api/collections/_files/documents/", { ...as, body: form("x") });
    expect(post.status).toBe(403);
    const put = await t.server.request("/api/collections/_files/documents/p1/", { ...as, method: "PUT", body: form("x") });
    expect(put).toMatchObject({ status: 403, body: { message: "Not allowed to write or update in collection _files" } });
    // A document save refused before it is known to create or replace names both rights too.
    for (const path of ["/api/collections/notes/documents/n1/", "/api/collections/notes/documents/"]) {
      const save = await t.server.request(path, { ...as, method: "PUT", json: { _id: "n1" } });
      expect(save, path).toMatchObject({ status: 403, body: { message: "Not allowed to write or update in collection notes" } });
    }
    const list = await t.server.request("/api/collections/_files/documents/", as);
    expect(list.body.total).toBe(0);
  });

  it("update may replace an existing file but not create one; write may create", async () => {
    const owner = { project: t.owner.project, token: t.owner.token };
    expect((await t.server.request("/api/collections/_files/documents/kept/", { ...owner, method: "PUT", body: form("v1") })).status).toBe(201);
    const updater = await createToken(t.server, t.owner.session, t.owner.project, { allow: { update: ["_files"], read: ["_files"] } });
    const as = { project: t.owner.project, token: updater };
    const replace = await t.server.request("/api/collections/_files/documents/kept/", { ...as, method: "PUT", body: form("v2") });
    expect(replace.status).toBe(200);
    expect((await t.server.request("/api/collections/_files/documents/kept/content/", as)).text).toBe("v2");
    const create = await t.server.request("/api/collections/_files/documents/new-one/", { ...as, method: "PUT", body: form("v1") });
    expect(create.status).toBe(403);
    const writer = await createToken(t.server, t.owner.session, t.owner.project, { allow: { write: ["_files"] } });
    const created = await t.server.request("/api/collections/_files/documents/new-one/", { project: t.owner.project, token: writer, method: "PUT", body: form("v1") });
    expect(created.status).toBe(201);
  });

  it("without read on _files, an absent file id is refused as a hidden one is (no probing which ids exist)", async () => {
    const owner = { project: t.owner.project, token: t.owner.token };
    expect((await t.server.request("/api/collections/_files/documents/hidden-file/", { ...owner, method: "PUT", body: form("h") })).status).toBe(201);
    const other = await createToken(t.server, t.owner.session, t.owner.project, { allow: { read: ["elsewhere"] } });
    const as = { project: t.owner.project, token: other };
    for (const id of ["hidden-file", "no-such-file"]) {
      for (const suffix of ["", "content/"]) {
        const res = await t.server.request(`/api/collections/_files/documents/${id}/${suffix}`, as);
        expect(res, `${id}/${suffix}`).toMatchObject({ status: 403, body: { message: "Not allowed to read in collection _files" } });
      }
    }
    expect((await t.server.request("/api/collections/_files/documents/no-such-file/", owner)).status).toBe(404);
  });
});
