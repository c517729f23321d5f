import { describe, expect, it } from "vitest";
import { tokenDates } from "../../auth/token-dates";
import { flushTokenLastUsed, noteTokenUse, WRITE_EVERY_MS } from "../../auth/token-last-used";
import { apiSuite } from "../../testing/api-suite";
import { createProject, createToken } from "../../testing/fixtures";

/**
 * Tokens' `last_used_at` (issue 14): written off the request path, at most once a minute per
 * token, never moving backwards; read for the dashboard only (the `_tokens` records keep the
 * shape CONTRACT §9 fixes).
 */
const t = apiSuite();

async function lastUsed(project: string, name: string): Promise<Date | null> {
  const { rows } = await t.db.query("SELECT last_used_at FROM tokens WHERE project_id = $1 AND name = $2", [project, name]);
  return rows[0].last_used_at;
}

async function tokenNamed(project: string, name: string, permission: unknown = { allow: { all: true } }): Promise<{ id: string; secret: string }> {
  const res = await t.server.request("/api/collections/_tokens/documents/", { session: t.owner.session, project, json: { name, permission } });
  expect(res.status).toBe(201);
  return { id: res.body._id, secret: res.body.token };
}

describe("tokens' last use", () => {
  it("a request by a token sets last_used_at once flushed; the API's token record stays as the contract has it", async () => {
    const token = await tokenNamed(t.owner.project, "used");
    expect(await lastUsed(t.owner.project, "used")).toBeNull();
    const before = Date.now();
    expect((await t.server.request("/api/collections/", { project: t.owner.project, token: token.secret })).status).toBe(200);
    await flushTokenLastUsed();
    const first = await lastUsed(t.owner.project, "used");
    expect(first).not.toBeNull();
    expect(first!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    const record = await t.server.request(`/api/collections/_tokens/documents/${token.id}/`, { project: t.owner.project, token: t.owner.token });
    expect(Object.keys(record.body).sort()).toEqual(["_id", "is_active", "name", "permission"]);
    const list = await t.server.request("/api/collections/_tokens/documents/", { project: t.owner.project, token: t.owner.token });
    for (const item of list.body.items) expect(Object.keys(item).sort()).toEqual(["_id", "is_active", "name", "permission"]);
  });

  it("is written at most once a minute per token: more requests within the minute write nothing", async () => {
    const token = await tokenNamed(t.owner.project, "busy");
    await t.server.request("/api/collections/", { project: t.owner.project, token: token.secret });
    await flushTokenLastUsed();
    const first = await lastUsed(t.owner.project, "busy");
    expect(first).not.toBeNull();
    for (let i = 0; i < 20; i++) expect((await t.server.request("/api/collections/", { project: t.owner.project, token: token.secret })).status).toBe(200);
    await flushTokenLastUsed();
    // Each of those requests came milliseconds later: any write would have moved the date.
    expect(await lastUsed(t.owner.project, "busy")).toEqual(first);
  });

  it("a use a minute later is written, and a time never moves backwards", async () => {
    const token = await tokenNamed(t.owner.project, "later");
    const start = Date.now();
    noteTokenUse(t.owner.project, token.id, start);
    await flushTokenLastUsed();
    expect((await lastUsed(t.owner.project, "later"))!.getTime()).toBe(start);
    noteTokenUse(t.owner.project, token.id, start + WRITE_EVERY_MS - 1); // within the minute: nothing queued
    await flushTokenLastUsed();
    expect((await lastUsed(t.owner.project, "later"))!.getTime()).toBe(start);
    noteTokenUse(t.owner.project, token.id, start + WRITE_EVERY_MS);
    await flushTokenLastUsed();
    expect((await lastUsed(t.owner.project, "later"))!.getTime()).toBe(start + WRITE_EVERY_MS);
    // Another process's older note (a clock behind, a late flush) does not move it back.
    await t.db.query("UPDATE tokens SET last_used_at = $3 WHERE project_id = $1 AND id = $2", [t.owner.project, token.id, new Date(start + 10 * WRITE_EVERY_MS)]);
    noteTokenUse(t.owner.project, token.id, start + 2 * WRITE_EVERY_MS);
    await flushTokenLastUsed();
    expect((await lastUsed(t.owner.project, "later"))!.getTime()).toBe(start + 10 * WRITE_EVERY_MS);
  });

  it("a refused token (inactive) or a session is no use of a token; a deleted token's note writes nothing", async () => {
    const token = await tokenNamed(t.owner.project, "inactive");
    await t.server.request(`/api/collections/_tokens/documents/${token.id}/`, { method: "PATCH", project: t.owner.project, session: t.owner.session, json: { is_active: false } });
    expect((await t.server.request("/api/collections/", { project: t.owner.project, token: token.secret })).status).toBe(401);
    await t.server.request("/api/collections/", { project: t.owner.project, session: t.owner.session });
    await flushTokenLastUsed();
    expect(await lastUsed(t.owner.project, "inactive")).toBeNull();
    noteTokenUse(t.owner.project, "no-such-token", Date.now());
    await expect(flushTokenLastUsed()).resolves.toBeUndefined();
  });

  it("tokenDates: the project's tokens only, for whoever may read _tokens", async () => {
    const other = await createProject(t.server, t.owner.session);
    await createToken(t.server, t.owner.session, other);
    const owner = { kind: "user" as const, userId: "u", email: "e", role: "owner" as const };
    const mine = await tokenDates(t.owner.project, owner);
    const theirs = await tokenDates(other, owner);
    expect(Object.keys(theirs)).toHaveLength(1);
    for (const id of Object.keys(theirs)) expect(mine[id]).toBeUndefined();
    const used = Object.values(mine).find((dates) => dates.last_used_at !== null);
    expect(used?.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(Object.keys(await tokenDates(t.owner.project, { ...owner, role: "member" }))).toEqual(Object.keys(mine));
    await expect(tokenDates(t.owner.project, { kind: "token", tokenId: "x", allow: { all: false, read: ["books"], write: [], update: [], delete: [] } })).rejects.toMatchObject({
      status: 403,
    });
  });
});
