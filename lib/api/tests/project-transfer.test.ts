import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProject, signUpUser, uniqueEmail, uniqueProjectId } from "../../testing/fixtures";
import { USERS } from "../../testing/member-fixtures";
import { startTestServer, type TestServer } from "../../testing/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** PATCH /api/user/projects/<id>/ {owner: <email>}: the dashboard's "transfer ownership". */
describe("project transfer", () => {
  it("hands the project to a member; the previous owner stays as an admin", async () => {
    const owner = await signUpUser(server);
    const bob = await signUpUser(server);
    const id = await createProject(server, owner.session, uniqueProjectId("xfer"), { name: "Shop" });
    expect((await server.request(USERS, { session: owner.session, project: id, json: { _id: bob.email, role: "member" } })).status).toBe(201);

    const moved = await server.request(`/api/user/projects/${id}/`, { method: "PATCH", session: owner.session, json: { owner: bob.email, name: "Bob's shop" } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ _id: id, name: "Bob's shop" });

    const members = (await server.request(`${USERS}?per_page=100`, { session: bob.session, project: id })).body.items;
    expect(members.find((m: { _id: string }) => m._id === bob.email).role).toBe("owner");
    expect(members.find((m: { _id: string }) => m._id === owner.email).role).toBe("admin");
    // Only the owner deletes: now Bob, not the previous owner.
    expect((await server.request(`/api/user/projects/${id}/`, { method: "DELETE", session: owner.session })).status).toBe(403);
    expect((await server.request(`/api/user/projects/${id}/`, { method: "DELETE", session: bob.session })).status).toBe(204);
  });

  it("is the owner's alone, and only to an active member who has joined", async () => {
    const owner = await signUpUser(server);
    const admin = await signUpUser(server);
    const id = await createProject(server, owner.session, uniqueProjectId("xfer"));
    expect((await server.request(USERS, { session: owner.session, project: id, json: { _id: admin.email, role: "admin" } })).status).toBe(201);

    const byAdmin = await server.request(`/api/user/projects/${id}/`, { method: "PATCH", session: admin.session, json: { owner: admin.email } });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body).toEqual({ message: "Only the owner can transfer a project." });

    const stranger = await server.request(`/api/user/projects/${id}/`, { method: "PATCH", session: owner.session, json: { owner: uniqueEmail("nobody") } });
    expect(stranger.status).toBe(422);
    expect(stranger.body.errors).toEqual([{ property: "owner", message: "must be an active member who has joined the project" }]);

    const pending = uniqueEmail("pending");
    expect((await server.request(USERS, { session: owner.session, project: id, json: { _id: pending } })).status).toBe(201);
    expect((await server.request(`/api/user/projects/${id}/`, { method: "PATCH", session: owner.session, json: { owner: pending } })).status).toBe(422);

    expect((await server.request(`${USERS}${admin.email}/`, { method: "PATCH", session: owner.session, project: id, json: { is_active: false } })).status).toBe(200);
    expect((await server.request(`/api/user/projects/${id}/`, { method: "PATCH", session: owner.session, json: { owner: admin.email } })).status).toBe(422);

    const notText = await server.request(`/api/user/projects/${id}/`, { method: "PATCH", session: owner.session, json: { owner: 42 } });
    expect(notText.status).toBe(422);
    expect(notText.body.errors).toEqual([{ property: "owner", message: "must be the e-mail of a member" }]);

    // A refused transfer leaves the keys that came with it unapplied (nothing half-written).
    const before = (await server.request(`/api/user/projects/${id}/`, { session: owner.session })).body;
    const mixed = await server.request(`/api/user/projects/${id}/`, { method: "PATCH", session: owner.session, json: { name: "renamed", settings: { debug: true }, owner: uniqueEmail("nobody") } });
    expect(mixed.status).toBe(422);
    expect((await server.request(`/api/user/projects/${id}/`, { session: owner.session })).body).toEqual(before);
  });

  it("refuses a new owner who already owns the most projects an account can own", async () => {
    const owner = await signUpUser(server);
    const busy = await signUpUser(server);
    for (let i = 0; i < 5; i++) await createProject(server, busy.session, uniqueProjectId("busy"));
    const id = await createProject(server, owner.session, uniqueProjectId("xfer"));
    expect((await server.request(USERS, { session: owner.session, project: id, json: { _id: busy.email } })).status).toBe(201);
    const refused = await server.request(`/api/user/projects/${id}/`, { method: "PATCH", session: owner.session, json: { owner: busy.email } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([{ property: "owner", message: "already owns 5 projects, the most an account can own" }]);
  });

  it("two transfers of one project at once: one wins, the other is 403 (never two owners)", async () => {
    const owner = await signUpUser(server);
    const a = await signUpUser(server);
    const c = await signUpUser(server);
    const id = await createProject(server, owner.session, uniqueProjectId("twice"));
    for (const member of [a, c]) expect((await server.request(USERS, { session: owner.session, project: id, json: { _id: member.email, role: "admin" } })).status).toBe(201);
    const answers = await Promise.all([a, c].map((member) => server.request(`/api/user/projects/${id}/`, { method: "PATCH", session: owner.session, json: { owner: member.email } })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 403]);
    const members = (await server.request(`${USERS}?per_page=100`, { session: a.session, project: id })).body.items as { _id: string; role: string }[];
    expect(members.filter((m) => m.role === "owner")).toHaveLength(1);
  });

  it("transfers to an account racing each other and its own create never leave it owning more than 5", async () => {
    const busy = await signUpUser(server);
    for (let i = 0; i < 4; i++) await createProject(server, busy.session, uniqueProjectId("race"));
    const owner = await signUpUser(server);
    const offered: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = await createProject(server, owner.session, uniqueProjectId("race"));
      expect((await server.request(USERS, { session: owner.session, project: id, json: { _id: busy.email } })).status).toBe(201);
      offered.push(id);
    }
    const answers = await Promise.all([
      ...offered.map((id) => server.request(`/api/user/projects/${id}/`, { method: "PATCH", session: owner.session, json: { owner: busy.email } })),
      server.request("/api/user/projects/", { session: busy.session, json: { _id: uniqueProjectId("race") } }),
    ]);
    expect(answers.filter((a) => a.status === 200 || a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 422)).toHaveLength(3);
    // Four owned before, one taken now: the account is at the most, and stays there.
    expect((await server.request("/api/user/projects/", { session: busy.session, json: { _id: uniqueProjectId("race") } })).status).toBe(422);
  });
});
