import pg from "pg";
import { expect, inject } from "vitest";
import type { TestServer } from "./test-server";

/** Helpers for the members and invitations tests. */
export const USERS = "/api/collections/_users/documents/";
export const NOTIFICATIONS = "/api/collections/_notification/documents/";

/** Waits for an invitation mail to `email` whose link is not one of `seen`; answers the token. */
export async function invitationToken(server: TestServer, email: string, seen: string[] = []): Promise<string> {
  const mail = await server.smtp.waitForMail((m) => {
    const token = tokenIn(m.text);
    return m.to.includes(email) && token !== undefined && !seen.includes(token);
  });
  const token = tokenIn(mail.text);
  expect(token, mail.text).toBeDefined();
  expect(mail.html).toContain(`/invite/${token}`);
  return token!;
}

function tokenIn(text: string): string | undefined {
  return /\/invite\/([A-Za-z0-9_-]+)/.exec(text)?.[1];
}

/** Runs one SQL statement against the test database, bypassing the API. */
export async function sqlQuery(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const db = new pg.Client({ connectionString: inject("databaseUrl") });
  await db.connect();
  try {
    return await db.query(text, values);
  } finally {
    await db.end();
  }
}
