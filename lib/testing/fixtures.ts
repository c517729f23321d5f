import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import type { TestServer } from "./test-server";

/** Builders for the common preconditions of API tests, each going through the real API. */
export function uniqueEmail(prefix = "user"): string {
  return `${prefix}-${randomBytes(5).toString("hex")}@example.test`;
}

export function uniqueProjectId(prefix = "p"): string {
  return `${prefix}-${randomBytes(5).toString("hex")}`;
}

/** Signs up through the API, reads the code from the mail the SMTP listener received, confirms. */
export async function signUpUser(server: TestServer, email = uniqueEmail(), password = "password-123"): Promise<{ email: string; password: string; session: string }> {
  const signUp = await server.request("/api/user/", { json: { email, password } });
  expect(signUp.status, signUp.text).toBe(201);
  const mail = await server.smtp.waitForMail((m) => m.to.includes(email));
  const code = confirmationCodeOf(mail.text);
  expect(code, mail.text).toBeDefined();
  const confirm = await server.request("/api/user/", { action: "confirm", json: { code } });
  expect(confirm.status, confirm.text).toBe(200);
  return { email, password, session: confirm.body.sessionId };
}

/** The grouped sign-up code (`XXXX-XXXX-XXXX`) of a confirmation mail's text. */
export function confirmationCodeOf(text: string): string | undefined {
  return /\b([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})\b/.exec(text)?.[1];
}

export async function createProject(server: TestServer, session: string, id = uniqueProjectId(), body: Record<string, unknown> = {}): Promise<string> {
  const response = await server.request("/api/user/projects/", { session, json: { _id: id, name: `Project ${id}`, ...body } });
  expect(response.status, response.text).toBe(201);
  return id;
}

export async function createToken(server: TestServer, session: string, project: string, permission: unknown = { allow: { all: true } }): Promise<string> {
  const response = await server.request("/api/collections/_tokens/documents/", { session, project, json: { name: "test", permission } });
  expect(response.status, response.text).toBe(201);
  return response.body.token;
}

/** A user with a project and an all-powerful token in it: the usual start of a test. */
export async function ownerWithProject(server: TestServer) {
  const owner = await signUpUser(server);
  const project = await createProject(server, owner.session);
  const token = await createToken(server, owner.session, project);
  return { ...owner, project, token };
}
