import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProject, signUpUser, uniqueProjectId } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("projects", () => {
  it("creates, reads, patches, saves and deletes a project", async () => {
    const { session } = await signUpUser(server);
    const id = uniqueProjectId();
    const created = await server.request("/api/user/projects/", { session, json: { _id: id, name: "Shop" } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      _id: id,
      name: "Shop",
      settings: { debug: false, files_size_limit: 0, data_size_limit: 0, delete_files: true, orphan_files_ttl: "", events_ttl: "24h", hooks_history_ttl: "720h" },
      status: { files_size: 0, data_size: 0, is_active: true },
    });

    const read = await server.request(`/api/user/projects/${id}/`, { session });
    expect(read.body).toEqual(created.body);

    const fields = await server.request(`/api/user/projects/${id}/?fields=name`, { session });
    expect(fields.body).toEqual({ _id: id, name: "Shop" });

    const patched = await server.request(`/api/user/projects/${id}`, {
      method: "PATCH",
      session,
      json: { settings: { debug: true, orphan_files_ttl: "168h" } },
    });
    expect(patched.body.settings).toMatchObject({ debug: true, orphan_files_ttl: "168h", files_size_limit: 0 });

    const saved = await server.request(`/api/user/projects/${id}/`, { method: "PUT", session, json: { name: "Shop 2" } });
    expect(saved.status).toBe(200);
    expect(saved.body.name).toBe("Shop 2");
    expect(saved.body.settings.debug).toBe(false);

    const other = uniqueProjectId();
    const put = await server.request(`/api/user/projects/${other}/`, { method: "PUT", session, json: { name: "New" } });
    expect(put.status).toBe(201);

    const deleted = await server.request(`/api/user/projects/${id}/`, { method: "DELETE", session });
    expect(deleted.status).toBe(204);
    expect((await server.request(`/api/user/projects/${id}/`, { session })).status).toBe(404);
  });

  it("lists with paging, filter and text", async () => {
    const { session } = await signUpUser(server);
    const a = await createProject(server, session, uniqueProjectId("alpha"), { name: "Alpha shop" });
    const b = await createProject(server, session, uniqueProjectId("beta"), { name: "Beta blog" });
    const all = await server.request("/api/user/projects/", { session });
    expect(all.body.total).toBe(2);
    expect(all.body.items.map((p: { _id: string }) => p._id)).toEqual([a, b].sort());
    expect(all.body).toMatchObject({ page: 1, pages: 1, per_page: 100, links: { next: "", prev: "" } });
    expect(all.body.links.first).toMatch(/^http:\/\/.*page=1/);

    const filtered = await server.request(`/api/user/projects/?filter=${encodeURIComponent(JSON.stringify({ name: "Beta blog" }))}`, { session });
    expect(filtered.body.items.map((p: { _id: string }) => p._id)).toEqual([b]);

    const found = await server.request("/api/user/projects/", { session, action: "find", json: { text: "alpha" } });
    expect(found.body.items.map((p: { _id: string }) => p._id)).toEqual([a]);

    const paged = await server.request("/api/user/projects/?per_page=1&page=2", { session });
    expect(paged.body).toMatchObject({ total: 2, page: 2, pages: 2, per_page: 1 });
    expect(paged.body.items).toHaveLength(1);
    expect(paged.body.links.prev).toContain("page=1");

    const badFilter = await server.request(`/api/user/projects/?filter=${encodeURIComponent('{"name":{"$nope":1}}')}`, { session });
    expect(badFilter.status).toBe(400);

    // One project takes no verb, but without credentials that is not what the answer says.
    const anonymous = await server.request(`/api/user/projects/${a}/`, { action: "find", json: {} });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: "Not authorized" });
    expect((await server.request(`/api/user/projects/${a}/`, { session, action: "find", json: {} })).status).toBe(403);
  });

  it("allows five projects per owner and refuses the sixth with 422", async () => {
    const { session } = await signUpUser(server);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await createProject(server, session));
    const sixth = await server.request("/api/user/projects/", { session, json: { _id: uniqueProjectId() } });
    expect(sixth.status).toBe(422);
    expect(sixth.body.message).toBe("A user can own at most 5 projects.");
    // An id already taken is 409 first, whatever the count.
    const again = await server.request("/api/user/projects/", { session, json: { _id: ids[0] } });
    expect(again).toMatchObject({ status: 409, body: { message: "Project already exists." } });
  });

  it("refuses invalid ids, settings and taken ids", async () => {
    const { session } = await signUpUser(server);
    const badId = await server.request("/api/user/projects/", { session, json: { _id: "Bad_Id" } });
    expect(badId.status).toBe(422);
    expect(badId.body.errors[0].property).toBe("_id");
    const badSettings = await server.request("/api/user/projects/", {
      session,
      json: { _id: uniqueProjectId(), settings: { files_size_limit: -1, orphan_files_ttl: "soon" } },
    });
    expect(badSettings.status).toBe(422);
    expect(badSettings.body.errors.map((e: { property: string }) => e.property).sort()).toEqual([
      "settings.files_size_limit",
      "settings.orphan_files_ttl",
    ]);
    // Durations past 100 years overflow PostgreSQL's intervals: refused, never stored.
    for (const setting of ["orphan_files_ttl", "events_ttl", "hooks_history_ttl"]) {
      for (const value of ["100000000000000000000s", "3000000000h", "36501d"]) {
        const res = await server.request("/api/user/projects/", { session, json: { _id: uniqueProjectId(), settings: { [setting]: value } } });
        expect(res.status, `${setting} ${value}`).toBe(422);
        expect(res.body.errors).toEqual([{ property: `settings.${setting}`, message: 'must be a duration like "168h", "30m" or "" for never, of at most 100 years' }]);
      }
    }
    const id = await createProject(server, session);
    // An _id in the body names the project too: another than the path's is 422, never ignored.
    for (const method of ["POST", "PUT", "PATCH"]) {
      const path = method === "POST" ? `/api/user/projects/${uniqueProjectId()}/` : `/api/user/projects/${id}/`;
      const res = await server.request(path, { method, session, json: { _id: "someone-else", name: "n" } });
      expect(res.status, method).toBe(422);
      expect(res.body.errors).toEqual([{ property: "_id", message: "must match the id in the path" }]);
    }
    expect((await server.request(`/api/user/projects/${id}/`, { method: "PATCH", session, json: { _id: id, name: "same id" } })).status).toBe(200);
    const other = await signUpUser(server);
    const taken = await server.request("/api/user/projects/", { session: other.session, json: { _id: id } });
    expect(taken).toMatchObject({ status: 409, body: { message: "Project already exists." } });
  });

  it("shows another user's project to nobody else: 403, as on the project's host", async () => {
    const alice = await signUpUser(server);
    const bob = await signUpUser(server);
    const id = await createProject(server, alice.session);
    const refused = { status: 403, body: { message: "You are not a member of this project." } };
    expect(await server.request(`/api/user/projects/${id}/`, { session: bob.session })).toMatchObject(refused);
    expect(await server.request(`/api/user/projects/${id}/`, { method: "PATCH", session: bob.session, json: { name: "x" } })).toMatchObject(refused);
    expect(await server.request(`/api/user/projects/${id}/`, { method: "DELETE", session: bob.session })).toMatchObject(refused);
    expect(await server.request(`/api/info/`, { project: id, session: bob.session })).toMatchObject(refused);
    expect((await server.request(`/api/user/projects/not-${id}/`, { session: bob.session })).status).toBe(404);
    // A save of a taken id is 409, as its create is (ids are global), and changes nothing.
    const put = await server.request(`/api/user/projects/${id}/`, { method: "PUT", session: bob.session, json: { name: "mine" } });
    expect(put).toMatchObject({ status: 409, body: { message: "Project already exists." } });
    expect((await server.request(`/api/user/projects/${id}/`, { session: alice.session })).body.name).not.toBe("mine");
    expect((await server.request("/api/user/projects/", { session: bob.session })).body.total).toBe(0);
  });

  it("requires a session", async () => {
    expect((await server.request("/api/user/projects/")).status).toBe(401);
  });
});
