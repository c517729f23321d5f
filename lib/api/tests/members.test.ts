import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { confirmationCodeOf, createProject, createToken, ownerWithProject, signUpUser, uniqueEmail } from "../../testing/fixtures";
import { invitationToken, NOTIFICATIONS, sqlQuery, USERS } from "../../testing/member-fixtures";
import { startTestServer, type TestServer } from "../../testing/test-server";

let server: TestServer;
let owner: Awaited<ReturnType<typeof ownerWithProject>>;
beforeAll(async () => {
  server = await startTestServer();
  owner = await ownerWithProject(server);
});
afterAll(() => server.close());

const asOwner = () => ({ project: owner.project, session: owner.session });

async function invite(email: string, body: Record<string, unknown> = {}, as: { project: string; session?: string; token?: string } = asOwner()) {
  return server.request(USERS, { ...as, json: { _id: email, ...body } });
}

describe("_users", () => {
  it("lists the owner as an active member", async () => {
    const list = await server.request(USERS, asOwner());
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([
      { _id: owner.email, is_active: true, role: "owner", date_joined: expect.any(String) },
    ]);
    const read = await server.request(`${USERS}${owner.email}/`, asOwner());
    expect(read.body._id).toBe(owner.email);
  });

  it("a registered user gets access at once, a notification and a mail", async () => {
    const guest = await signUpUser(server);
    expect((await server.request("/api/info/", { project: owner.project, session: guest.session })).status).toBe(403);

    const invited = await invite(guest.email.toUpperCase(), { role: "admin" });
    expect(invited.status, invited.text).toBe(201);
    expect(invited.body).toEqual({ _id: guest.email, is_active: true, role: "admin", date_joined: expect.any(String) });

    const info = await server.request("/api/info/", { project: owner.project, session: guest.session });
    expect(info.status).toBe(200);
    expect(info.body._id).toBe(owner.project);

    const mail = await server.smtp.waitForMail((m) => m.to.includes(guest.email) && /added to/.test(m.subject));
    expect(mail.text).toContain(owner.email);
    expect(mail.html).toContain(`Project ${owner.project}`);

    const notifications = await server.request(NOTIFICATIONS, asOwner());
    expect(notifications.body.items).toContainEqual({
      _id: expect.any(String),
      author: owner.email,
      subject: `${guest.email} was added to the project`,
      message: expect.stringContaining("as admin"),
      date_sent: expect.any(String),
    });

    const again = await invite(guest.email);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: "User is already a member." });
  });

  it("an unknown address follows the mailed link, signs up and gets access", async () => {
    const email = uniqueEmail("newcomer");
    const invited = await invite(email);
    expect(invited.status, invited.text).toBe(201);
    expect(invited.body).toEqual({ _id: email, is_active: true, role: "member", date_joined: null });
    // Pending invitations are the records without a join date.
    const pending = await server.request(`/api/collections/_users/documents/?filter=${encodeURIComponent('{"date_joined":null}')}`, asOwner());
    expect(pending.body.items.map((m: { _id: string }) => m._id)).toContain(email);
    expect(pending.body.items.map((m: { _id: string }) => m._id)).not.toContain(owner.email);

    const token = await invitationToken(server, email);
    const mail = server.smtp.messages.find((m) => m.text.includes(token))!;
    expect(mail.subject).toContain(`Project ${owner.project}`);
    expect(mail.text).toMatch(/expires on/);

    // Stored only as a hash.
    const { rows } = await sqlQuery("SELECT token_hash FROM invitations WHERE project_id = $1 AND email = $2", [owner.project, email]);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).not.toContain(token);

    const info = await server.request(`/api/invitations/${token}/`);
    expect(info.status).toBe(200);
    expect(info.body).toEqual({
      project: { _id: owner.project, name: `Project ${owner.project}` },
      email,
      state: "valid",
      expires_at: expect.any(String),
      has_account: false,
    });
    const days = (Date.parse(info.body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);

    const short = await server.request(`/api/invitations/${token}/`, { action: "accept", json: { password: "short" } });
    expect(short.status).toBe(422);

    const accepted = await server.request(`/api/invitations/${token}/`, { action: "accept", json: { password: "password-123", name: "New" } });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toMatchObject({ project: { _id: owner.project }, member: { _id: email, date_joined: expect.any(String), role: "member" } });
    const session = accepted.body.sessionId;
    expect((await server.request("/api/info/", { project: owner.project, session })).status).toBe(200);
    expect((await server.request("/api/user/", { session })).body).toMatchObject({ email, name: "New" });

    // The account is confirmed: logging in works.
    const login = await server.request("/api/user/", { action: "login", json: { email, password: "password-123" } });
    expect(login.status).toBe(200);

    const member = await server.request(`${USERS}${email}/`, asOwner());
    expect(member.body).toMatchObject({ date_joined: expect.any(String) });
    const joined = await server.request(`${NOTIFICATIONS}?filter=${encodeURIComponent(JSON.stringify({ author: email }))}`, asOwner());
    expect(joined.body.items).toHaveLength(1);
    expect(joined.body.items[0].subject).toBe(`${email} joined the project`);
  });

  it("a used link says so and cannot be used again", async () => {
    const email = uniqueEmail("twice");
    await invite(email);
    const token = await invitationToken(server, email);
    const first = await server.request(`/api/invitations/${token}/`, { action: "accept", json: { password: "password-123" } });
    expect(first.status).toBe(200);
    const second = await server.request(`/api/invitations/${token}/`, { action: "accept", json: { password: "password-456" } });
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ message: "Invitation has already been used." });
    expect((await server.request(`/api/invitations/${token}/`)).body.state).toBe("used");
    const resend = await server.request(`/api/invitations/${token}/`, { action: "resend" });
    expect(resend.status).toBe(409);
  });

  it("an expired link says so and offers a new one, which works", async () => {
    const email = uniqueEmail("late");
    await invite(email);
    const token = await invitationToken(server, email);
    await sqlQuery("UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE project_id = $1 AND email = $2", [owner.project, email]);

    expect((await server.request(`/api/invitations/${token}/`)).body.state).toBe("expired");
    const accept = await server.request(`/api/invitations/${token}/`, { action: "accept", json: { password: "password-123" } });
    expect(accept.status).toBe(422);
    expect(accept.body).toEqual({ message: "Invitation has expired." });

    const resend = await server.request(`/api/invitations/${token}/`, { action: "resend" });
    expect(resend.status, resend.text).toBe(200);
    const fresh = await invitationToken(server, email, [token]);
    expect((await server.request(`/api/invitations/${token}/`)).status).toBe(404);
    const accepted = await server.request(`/api/invitations/${fresh}/`, { action: "accept", json: { password: "password-123" } });
    expect(accepted.status, accepted.text).toBe(200);
    expect((await server.request("/api/info/", { project: owner.project, session: accepted.body.sessionId })).status).toBe(200);
  });

  it("re-inviting replaces the link instead of failing", async () => {
    const email = uniqueEmail("again");
    expect((await invite(email)).status).toBe(201);
    const old = await invitationToken(server, email);
    const again = await invite(email, { role: "admin" });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ role: "admin", date_joined: null });
    const fresh = await invitationToken(server, email, [old]);
    expect(fresh).not.toBe(old);

    expect((await server.request(`/api/invitations/${old}/`)).status).toBe(404);
    const stale = await server.request(`/api/invitations/${old}/`, { action: "accept", json: { password: "password-123" } });
    expect(stale.status).toBe(404);
    const accepted = await server.request(`/api/invitations/${fresh}/`, { action: "accept", json: { password: "password-123" } });
    expect(accepted.status).toBe(200);
    expect(accepted.body.member.role).toBe("admin");
  });

  it("PUT invites too, then saves", async () => {
    const email = uniqueEmail("put");
    const created = await server.request(`${USERS}${email}/`, { ...asOwner(), method: "PUT", json: { role: "member" } });
    expect(created.status).toBe(201);
    const saved = await server.request(`${USERS}${email}/`, { ...asOwner(), method: "PUT", json: { role: "admin" } });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ _id: email, role: "admin", date_joined: null });
  });

  it("an invited address with an account signs in to accept; a wrong account is refused", async () => {
    const email = uniqueEmail("later");
    await invite(email);
    const token = await invitationToken(server, email);
    // The address signs up on its own before following the link.
    expect((await server.request("/api/user/", { json: { email, password: "password-123" } })).status).toBe(201);
    const confirmation = await server.smtp.waitForMail((m) => m.to.includes(email) && /Confirm/.test(m.subject));
    const code = confirmationCodeOf(confirmation.text)!;
    const account = { session: (await server.request("/api/user/", { action: "confirm", json: { code } })).body.sessionId as string };
    expect((await server.request(`/api/invitations/${token}/`)).body.has_account).toBe(true);
    const withPassword = await server.request(`/api/invitations/${token}/`, { action: "accept", json: { password: "password-999" } });
    expect(withPassword.status).toBe(409);
    expect(withPassword.body.message).toMatch(/Sign in/);

    const stranger = await signUpUser(server);
    const wrong = await server.request(`/api/invitations/${token}/`, { action: "accept", session: stranger.session });
    expect(wrong.status).toBe(403);

    const accepted = await server.request(`/api/invitations/${token}/`, { action: "accept", session: account.session });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.sessionId).toBeUndefined();
    expect((await server.request("/api/info/", { project: owner.project, session: account.session })).status).toBe(200);
  });

  it("removal revokes access at once and withdraws pending links", async () => {
    const guest = await signUpUser(server);
    await invite(guest.email);
    expect((await server.request("/api/info/", { project: owner.project, session: guest.session })).status).toBe(200);

    const off = await server.request(`${USERS}${guest.email}/`, { ...asOwner(), method: "PATCH", json: { is_active: false } });
    expect(off.body.is_active).toBe(false);
    expect((await server.request("/api/info/", { project: owner.project, session: guest.session })).status).toBe(403);
    await server.request(`${USERS}${guest.email}/`, { ...asOwner(), method: "PATCH", json: { is_active: true } });
    expect((await server.request("/api/info/", { project: owner.project, session: guest.session })).status).toBe(200);

    const removed = await server.request(`${USERS}${guest.email}/`, { ...asOwner(), method: "DELETE" });
    expect(removed.status).toBe(204);
    expect((await server.request("/api/info/", { project: owner.project, session: guest.session })).status).toBe(403);
    expect((await server.request(`${USERS}${guest.email}/`, asOwner())).status).toBe(404);

    const pending = uniqueEmail("withdrawn");
    await invite(pending);
    const token = await invitationToken(server, pending);
    expect((await server.request(`${USERS}${pending}/`, { ...asOwner(), method: "DELETE" })).status).toBe(204);
    expect((await server.request(`/api/invitations/${token}/`)).status).toBe(404);
    expect((await server.request(`/api/invitations/${token}/`, { action: "accept", json: { password: "password-123" } })).status).toBe(404);
  });

  it("a deactivated pending member's link reads as withdrawn until they are active again", async () => {
    const pending = uniqueEmail("paused");
    await invite(pending);
    const token = await invitationToken(server, pending);
    const path = `${USERS}${pending}/`;
    expect((await server.request(path, { ...asOwner(), method: "PATCH", json: { is_active: false } })).status).toBe(200);
    expect((await server.request(`/api/invitations/${token}/`)).body.state).toBe("withdrawn");
    const accept = await server.request(`/api/invitations/${token}/`, { action: "accept", json: { password: "password-123" } });
    expect(accept.status).toBe(403);
    expect(accept.body).toEqual({ message: "This invitation has been withdrawn." });

    expect((await server.request(path, { ...asOwner(), method: "PATCH", json: { is_active: true } })).status).toBe(200);
    expect((await server.request(`/api/invitations/${token}/`)).body.state).toBe("valid");
  });

  it("protects the owner", async () => {
    const path = `${USERS}${owner.email}/`;
    const remove = await server.request(path, { ...asOwner(), method: "DELETE" });
    expect(remove.status).toBe(403);
    expect(remove.body).toEqual({ message: "The owner cannot be removed." });
    const demote = await server.request(path, { ...asOwner(), method: "PATCH", json: { role: "admin" } });
    expect(demote.status).toBe(403);
    expect(demote.body).toEqual({ message: "The owner's role cannot be changed." });
    expect((await server.request(path, { ...asOwner(), method: "PATCH", json: { is_active: false } })).status).toBe(403);

    // Not even an admin can.
    const admin = await signUpUser(server);
    await invite(admin.email, { role: "admin" });
    expect((await server.request(path, { project: owner.project, session: admin.session, method: "DELETE" })).status).toBe(403);
    expect((await server.request(path, { project: owner.project, session: admin.session, method: "PUT", json: { role: "member" } })).status).toBe(403);
    // Nor can anyone be made a second owner.
    const promote = await server.request(`${USERS}${admin.email}/`, { ...asOwner(), method: "PATCH", json: { role: "owner" } });
    expect(promote.status).toBe(422);
    expect((await invite(uniqueEmail(), { role: "owner" })).status).toBe(422);
    // Saving the owner's record back unchanged is fine.
    expect((await server.request(path, { ...asOwner(), method: "PUT", json: { role: "owner", is_active: true } })).status).toBe(200);
  });

  it("delete by criteria removes the members selected; a filter selecting the owner removes nobody (403)", async () => {
    const a = uniqueEmail();
    const b = uniqueEmail();
    expect((await invite(a)).status).toBe(201);
    expect((await invite(b)).status).toBe(201);
    const withOwner = await server.request(USERS, { ...asOwner(), action: "delete", json: { filter: { _id: { $in: [a, owner.email] } } } });
    expect(withOwner.status).toBe(403);
    expect((await server.request(`${USERS}${a}/`, asOwner())).status).toBe(200);
    const removed = await server.request(USERS, { ...asOwner(), action: "delete", json: { filter: { _id: { $in: [a, b] } } } });
    expect(removed.body).toEqual({ deleted: 2 });
    expect((await server.request(`${USERS}${a}/`, asOwner())).status).toBe(404);
    expect((await server.request(`${USERS}${owner.email}/`, asOwner())).status).toBe(200);
    expect((await server.request(USERS, { ...asOwner(), action: "update", json: { filter: {}, operation: { $set: { role: "admin" } } } })).status).toBe(403);
  });

  it("PUT without an id in the path invites the body's _id (201), then saves it (200)", async () => {
    const email = uniqueEmail();
    const invited = await server.request(USERS, { ...asOwner(), method: "PUT", json: { _id: email, role: "member" } });
    expect(invited.status, invited.text).toBe(201);
    const saved = await server.request(USERS, { ...asOwner(), method: "PUT", json: { _id: email, role: "admin" } });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.role).toBe("admin");
    expect((await server.request(USERS, { ...asOwner(), method: "PUT", json: { role: "admin" } })).status).toBe(422);
  });

  it("a body _id other than the path's is 422 naming _id, as for documents; the same address in another case is the same member", async () => {
    const email = uniqueEmail();
    expect((await invite(email)).status).toBe(201);
    const other = uniqueEmail();
    const cases: [string, string, unknown, string][] = [
      ["PUT", `${USERS}${email}/`, { _id: other, role: "admin" }, "must match the id in the path"],
      ["PATCH", `${USERS}${email}/`, { _id: other }, "cannot be changed"],
      ["POST", `${USERS}${other}/`, { _id: email }, "must match the id in the path"],
      ["PUT", `${USERS}${email}/`, { _id: 5 }, "must match the id in the path"],
    ];
    for (const [method, path, json, message] of cases) {
      const res = await server.request(path, { ...asOwner(), method, json });
      expect(res.status, `${method} ${path} ${res.text}`).toBe(422);
      expect(res.body.errors).toEqual([{ property: "_id", message }]);
    }
    expect((await server.request(`${USERS}${other}/`, asOwner())).status).toBe(404);
    const same = await server.request(`${USERS}${email}/`, { ...asOwner(), method: "PUT", json: { _id: email.toUpperCase(), role: "admin" } });
    expect(same.status, same.text).toBe(200);
    expect(same.body.role).toBe("admin");
  });

  it("refuses an invalid e-mail address with 422", async () => {
    for (const bad of ["not-an-email", "a b@example.test", "", 42]) {
      const response = await server.request(USERS, { ...asOwner(), json: { _id: bad } });
      expect(response.status).toBe(422);
      expect(response.body.errors[0].property).toBe("_id");
    }
    expect((await server.request(`${USERS}nope/`, { ...asOwner(), method: "PUT", json: {} })).status).toBe(422);
    expect((await invite(uniqueEmail(), { role: "boss" })).status).toBe(422);
  });

  it("a member reads the members but cannot invite or change them; may leave", async () => {
    const member = await signUpUser(server);
    await invite(member.email, { role: "member" });
    const as = { project: owner.project, session: member.session };
    expect((await server.request(USERS, as)).status).toBe(200);
    const denied = await invite(uniqueEmail(), {}, as);
    expect(denied.status).toBe(403);
    expect((await server.request(`${USERS}${owner.email}/`, { ...as, method: "PATCH", json: { is_active: true } })).status).toBe(403);
    expect((await server.request(`${USERS}${member.email}/`, { ...as, method: "PATCH", json: { role: "admin" } })).status).toBe(403);

    expect((await server.request(`${USERS}${member.email}/`, { ...as, method: "DELETE" })).status).toBe(204);
    expect((await server.request("/api/info/", as)).status).toBe(403);
  });

  it("tokens: an all-powerful token invites; a data token cannot", async () => {
    const email = uniqueEmail("by-token");
    const invited = await invite(email, {}, { project: owner.project, token: owner.token });
    expect(invited.status).toBe(201);
    const token = await invitationToken(server, email);
    expect(server.smtp.messages.find((m) => m.text.includes(token))!.text).toContain("A project token");
    const reader = await createToken(server, owner.session, owner.project, { allow: { read: ["posts"], write: ["posts"] } });
    expect((await invite(uniqueEmail(), {}, { project: owner.project, token: reader })).status).toBe(403);
    // Naming _users is no way to admins: such a token lists and removes members, never makes or changes one.
    const usersToken = await createToken(server, owner.session, owner.project, { allow: { read: ["_users"], write: ["_users"], update: ["_users"], delete: ["_users"] } });
    const asUsers = { project: owner.project, token: usersToken };
    const made = await invite(uniqueEmail(), { role: "admin" }, asUsers);
    expect(made.status).toBe(403);
    expect(made.body.message).toBe("A token cannot grant more than it holds: inviting or changing members needs allow.all");
    expect((await server.request(`${USERS}${email}/`, { ...asUsers, method: "PATCH", json: { role: "admin" } })).status).toBe(403);
    expect((await server.request(USERS, asUsers)).status).toBe(200);
    expect((await server.request(`${USERS}${email}/`, { ...asUsers, method: "DELETE" })).status).toBe(204);
  });

  it("a member of project A has nothing in project B", async () => {
    const other = await signUpUser(server);
    const projectB = await createProject(server, other.session);
    const member = await signUpUser(server);
    await invite(member.email, { role: "admin" });
    const inB = { project: projectB, session: member.session };
    expect((await server.request("/api/info/", inB)).status).toBe(403);
    expect((await server.request(USERS, inB)).status).toBe(403);
    expect((await server.request(NOTIFICATIONS, inB)).status).toBe(403);
    expect((await invite(uniqueEmail(), {}, inB)).status).toBe(403);
    // A's token does not reach B either, and B's lists hold nothing of A.
    expect((await server.request(USERS, { project: projectB, token: owner.token })).status).toBe(401);
    const bMembers = await server.request(USERS, { project: projectB, session: other.session });
    expect(bMembers.body.items.map((m: { _id: string }) => m._id)).toEqual([other.email]);
    const bNotifications = await server.request(NOTIFICATIONS, { project: projectB, session: other.session });
    expect(bNotifications.body.total).toBe(0);
    // A's notification ids do not resolve in B.
    const aNotifications = await server.request(NOTIFICATIONS, asOwner());
    const someId = aNotifications.body.items[0]._id;
    expect((await server.request(`${NOTIFICATIONS}${someId}/`, { project: projectB, session: other.session })).status).toBe(404);
    expect((await server.request(`${NOTIFICATIONS}${someId}/`, { project: projectB, session: other.session, method: "DELETE" })).status).toBe(404);
    // An invitation of A cannot be accepted by a B session on another address.
    const email = uniqueEmail("a-only");
    await invite(email);
    const token = await invitationToken(server, email);
    expect((await server.request(`/api/invitations/${token}/`, { action: "accept", session: other.session })).status).toBe(403);
  });
});

describe("_notification", () => {
  it("system records' properties read by path like a document's; writing one is 403", async () => {
    const role = await server.request(`${USERS}${owner.email}/role/`, asOwner());
    expect(role).toMatchObject({ status: 200, body: "owner" });
    await invite(uniqueEmail("prop"));
    const [note] = (await server.request(NOTIFICATIONS, asOwner())).body.items;
    expect((await server.request(`/api/collections/_notifications/documents/${note._id}/subject/`, asOwner())).body).toBe(note.subject);
    const token = await server.request("/api/collections/_tokens/documents/", { ...asOwner(), json: { _id: "prop-token", name: "Named" } });
    expect(token.status).toBe(201);
    expect((await server.request("/api/collections/_tokens/documents/prop-token/permission/allow/all/", asOwner())).body).toBe(false);
    expect((await server.request(`${USERS}${owner.email}/nothing/`, asOwner())).body).toEqual({ message: "Document property not found." });
    expect((await server.request(`${USERS}nobody@example.com/role/`, asOwner())).status).toBe(404);
    const write = await server.request(`${USERS}${owner.email}/role/`, { ...asOwner(), method: "PUT", json: "admin" });
    expect(write.status).toBe(403);
    expect((await server.request(`${USERS}${owner.email}/role/`, { project: owner.project })).status).toBe(401);
  });

  it("is readable under both names, deletable, otherwise read-only", async () => {
    await invite(uniqueEmail("note"));
    const list = await server.request(NOTIFICATIONS, asOwner());
    expect(list.status).toBe(200);
    expect(list.body.total).toBeGreaterThan(0);
    const alias = await server.request("/api/collections/_notifications/documents/", asOwner());
    expect(alias.body.items).toEqual(list.body.items);

    const first = list.body.items[0];
    expect(Object.keys(first).sort()).toEqual(["_id", "author", "date_sent", "message", "subject"]);
    expect((await server.request(`${NOTIFICATIONS}${first._id}/`, asOwner())).body).toEqual(first);

    for (const [method, path] of [["POST", NOTIFICATIONS], ["POST", `${NOTIFICATIONS}x/`], ["PUT", `${NOTIFICATIONS}${first._id}/`], ["PATCH", `${NOTIFICATIONS}${first._id}/`]]) {
      const response = await server.request(path, { ...asOwner(), method, json: { subject: "forged" } });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body).toEqual({ message: "System collection is read-only" });
    }

    expect((await server.request(`${NOTIFICATIONS}${first._id}/`, { ...asOwner(), method: "DELETE" })).status).toBe(204);
    expect((await server.request(`${NOTIFICATIONS}${first._id}/`, asOwner())).status).toBe(404);

    const found = await server.request(NOTIFICATIONS, { ...asOwner(), action: "find", json: { filter: { subject: { $regex: "^Invitation sent" } } } });
    expect(found.body.total).toBeGreaterThan(0);
    const deleted = await server.request("/api/collections/_notifications/documents/", {
      ...asOwner(),
      action: "Delete",
      json: { payload: { filter: { _id: { $in: found.body.items.map((n: { _id: string }) => n._id) } } } },
    });
    expect(deleted.body).toEqual({ deleted: found.body.total });
    const rest = await server.request(NOTIFICATIONS, { ...asOwner(), action: "find", json: { filter: { subject: { $regex: "^Invitation sent" } } } });
    expect(rest.body.total).toBe(0);
  });

  it("a data token without a grant cannot read them", async () => {
    const reader = await createToken(server, owner.session, owner.project, { allow: { read: ["posts"] } });
    expect((await server.request(NOTIFICATIONS, { project: owner.project, token: reader })).status).toBe(403);
    const granted = await createToken(server, owner.session, owner.project, { allow: { read: ["_notifications"] } });
    expect((await server.request(NOTIFICATIONS, { project: owner.project, token: granted })).status).toBe(200);
  });
});
