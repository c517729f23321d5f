import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { confirmationCodeOf, signUpUser, uniqueEmail } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("sign-up and confirmation", () => {
  it("mails a code, confirms it once, then refuses reuse", async () => {
    const email = uniqueEmail();
    const signUp = await server.request("/api/user/", { json: { email, password: "password-123" } });
    expect(signUp.status).toBe(201);
    expect(signUp.body).toEqual({ message: "Check your email for confirmation code" });

    const mail = await server.smtp.waitForMail((m) => m.to.includes(email));
    const code = confirmationCodeOf(mail.text)!;
    expect(mail.subject).not.toContain(code);

    const confirm = await server.request("/api/user/", { action: "confirm", json: { code } });
    expect(confirm.status).toBe(200);
    expect(typeof confirm.body.sessionId).toBe("string");

    const again = await server.request("/api/user/", { action: "Confirm", json: { code } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: "User already exists." });
  });

  it("refuses a taken e-mail with 409", async () => {
    const { email } = await signUpUser(server);
    const response = await server.request("/api/user/", { json: { email, password: "password-456" } });
    expect(response).toMatchObject({ status: 409, body: { message: "User already exists." } });
  });

  it("validates the e-mail with 422 and names the property", async () => {
    const response = await server.request("/api/user/", { json: { email: "not an email", password: "password-123" } });
    expect(response.status).toBe(422);
    expect(response.body.message).toBe("Validation error");
    expect(response.body.errors[0].property).toBe("email");
  });

  it("refuses a short password with 422", async () => {
    const response = await server.request("/api/user/", { json: { email: uniqueEmail(), password: "short" } });
    expect(response.status).toBe(422);
    expect(response.body.errors[0].property).toBe("password");
  });

  it("refuses a name that is not text with 422, as PATCH does (never dropped)", async () => {
    const response = await server.request("/api/user/", { json: { email: uniqueEmail(), password: "password-123", name: 5 } });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([{ property: "name", message: "must be a string" }]);
    expect((await server.request("/api/user/", { json: { email: uniqueEmail(), password: "password-123", name: "Ann" } })).status).toBe(201);
    // Longer than 200 characters: 422, as for project names (it was cut short in silence).
    const long = await server.request("/api/user/", { json: { email: uniqueEmail(), password: "password-123", name: "n".repeat(201) } });
    expect(long.status).toBe(422);
    expect(long.body.errors).toEqual([{ property: "name", message: "must be at most 200 characters" }]);
  });

  it("answers 404 for an unknown code", async () => {
    const response = await server.request("/api/user/", { action: "confirm", json: { code: "0000-0000-0000" } });
    expect(response).toMatchObject({ status: 404, body: { message: "Confirmation code not found." } });
  });

  it("accepts the payload envelope", async () => {
    const email = uniqueEmail();
    const response = await server.request("/api/user/", { json: { payload: { email, password: "password-123" } } });
    expect(response.status).toBe(201);
  });
});

describe("sessions", () => {
  it("logs in, reads and edits the user, logs out", async () => {
    const { email, password } = await signUpUser(server);
    const login = await server.request("/api/user/", { action: "LOGIN", json: { email, password } });
    expect(login.status).toBe(200);
    const session = login.body.sessionId;

    const me = await server.request("/api/user/", { session });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ _id: expect.any(String), email, name: "" });

    const patched = await server.request("/api/user/", { method: "PATCH", session, json: { name: "Ada" } });
    expect(patched.body.name).toBe("Ada");
    const long = await server.request("/api/user/", { method: "PATCH", session, json: { name: "n".repeat(201) } });
    expect(long.status).toBe(422);
    expect(long.body.errors).toEqual([{ property: "name", message: "must be at most 200 characters" }]);
    expect((await server.request("/api/user/", { session })).body.name).toBe("Ada");

    const logout = await server.request("/api/user/", { action: "logout", session });
    expect(logout.status).toBe(204);
    expect(logout.text).toBe("");
    const after = await server.request("/api/user/", { session });
    expect(after).toMatchObject({ status: 401, body: { message: "Not authorized" } });
  });

  it("a new password ends the account's other sessions; the one that changed it goes on", async () => {
    const { email, password } = await signUpUser(server);
    const login = async (pass: string) => (await server.request("/api/user/", { action: "login", json: { email, password: pass } })).body.sessionId as string;
    const here = await login(password);
    const elsewhere = await login(password);
    expect((await server.request("/api/user/", { method: "PATCH", session: here, json: { name: "Same password" } })).status).toBe(200);
    expect((await server.request("/api/user/", { session: elsewhere })).status).toBe(200);
    expect((await server.request("/api/user/", { method: "PATCH", session: here, json: { password: "a brand new password" } })).status).toBe(200);
    expect((await server.request("/api/user/", { session: elsewhere })).status).toBe(401);
    expect((await server.request("/api/user/", { session: here })).status).toBe(200);
    expect((await server.request("/api/user/", { session: await login("a brand new password") })).status).toBe(200);
  });

  it("refuses wrong credentials with 401", async () => {
    const { email } = await signUpUser(server);
    const response = await server.request("/api/user/", { action: "login", json: { email, password: "wrong-password" } });
    expect(response).toMatchObject({ status: 401, body: { message: "Wrong credentials provided." } });
    const unknown = await server.request("/api/user/", { action: "login", json: { email: uniqueEmail(), password: "x" } });
    expect(unknown).toMatchObject({ status: 401, body: { message: "Wrong credentials provided." } });
  });

  it("does not let an unconfirmed account log in", async () => {
    const email = uniqueEmail();
    await server.request("/api/user/", { json: { email, password: "password-123" } });
    const response = await server.request("/api/user/", { action: "login", json: { email, password: "password-123" } });
    expect(response.status).toBe(401);
  });

  it("refuses user reads without a session, and with a project token", async () => {
    expect((await server.request("/api/user/")).status).toBe(401);
    expect((await server.request("/api/user/", { token: "whatever" })).status).toBe(401);
  });

  it("refuses an unknown property on PATCH with 422", async () => {
    const { session } = await signUpUser(server);
    const response = await server.request("/api/user/", { method: "PATCH", session, json: { role: "god" } });
    expect(response.status).toBe(422);
  });

  it("refuses an unknown action with 400", async () => {
    const response = await server.request("/api/user/", { action: "fly", json: {} });
    expect(response).toMatchObject({ status: 400, body: { message: "Unknown action: fly" } });
  });
});
