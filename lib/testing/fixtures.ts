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

/**
 * An existing collection `big` of this project filled with `count` documents `{_id, n, tag}` (1,000
 * tags) straight into the table, for tests that need work to take a while (no counters, no events).
 */
export async function bigCollection(server: TestServer, db: { query(text: string, values: unknown[]): Promise<unknown> }, as: { project: string; token: string }, count = 200_000): Promise<void> {
  const made = await server.request("/api/collections/", { ...as, json: { _id: "big" } });
  expect(made.status, made.text).toBe(201);
  await db.query(
    `INSERT INTO documents (project_id, collection_id, id, data)
     SELECT $1, 'big', 'b' || g, jsonb_build_object('_id', 'b' || g, 'n', g, 'tag', 't' || (g % 1000)) FROM generate_series(1, $2::int) g`,
    [as.project, count],
  );
}

const OPAQUE_PREFIX = Buffer.from([0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff]);
/**
 * Random bytes that no content-type signature claims. Plain random bytes sometimes begin like a
 * format the seed's list refuses (an AC-3 sync word, an ARJ or compress header: about one upload
 * in 11,000 of 100 bytes), and the upload is then rightly refused with 422. These begin with
 * bytes that start no signature and no UTF-8 text, so they are always `application/octet-stream`.
 */
export function opaqueBytes(size: number) {
  const bytes = randomBytes(size);
  OPAQUE_PREFIX.copy(bytes, 0, 0, Math.min(size, OPAQUE_PREFIX.length));
  return bytes;
}
