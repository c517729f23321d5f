import { encode } from "next-auth/jwt";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import { apiSuite } from "../../testing/api-suite";
import { ownerWithProject } from "../../testing/fixtures";
import { errorResponse } from "../../http/errors";
import { flushDebugLog } from "../../usage/debug-log";

/**
 * Issue 17 item 7: credentials are redacted after decoding, in every form (Authorization,
 * `?token=` however its name is escaped, cookies, Referer), in `_debug` and in the console.
 */
const t = apiSuite();
afterEach(() => vi.restoreAllMocks());

describe("credentials in _debug", () => {
  it("never stores a secret, whatever form carried it", async () => {
    const p = await ownerWithProject(t.server);
    const on = await t.server.request(`/api/user/projects/${p.project}/`, { method: "PATCH", session: p.session, json: { settings: { debug: true } } });
    expect(on.status).toBe(200);
    const secret = p.token;
    const name = "authjs.session-token";
    const cookie = `${name}=${await encode({ token: { sessionId: p.session }, secret: process.env.ARCA_SECRET!, salt: name })}`;

    const calls = [
      await t.server.request(`/api/collections/?%74oken=${secret}`, { project: p.project }),
      await t.server.request(`/api/collections/?%74%6F%6B%65%6E=${secret}&page=1`, { project: p.project }),
      await t.server.request("/api/collections/", { project: p.project, token: secret }),
      await t.server.request("/api/collections/", { project: p.project, headers: { authorization: `Bearer ${secret}` } }),
      await t.server.request("/api/collections/", { project: p.project, session: p.session }),
      await t.server.request("/api/collections/", { project: p.project, headers: { cookie } }),
      await t.server.request("/api/collections/", { project: p.project, token: secret, headers: { referer: `http://x.example/page?token=${secret}` } }),
      await t.server.request("/api/collections/_tokens/documents/", { project: p.project, token: secret, json: { name: "minted" } }),
    ];
    expect(calls.map((c) => c.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    const minted = calls[7].body.token as string;
    expect(minted).toBeTruthy();
    // A hook's signing secret, in the request body and in the answer.
    process.env.ARCA_HOOKS_ALLOW_PRIVATE = "true";
    const hookSecret = "hook-signing-secret-1234";
    const hook = await t.server.request("/api/collections/_hooks/documents/hk/", { project: p.project, token: secret, method: "PUT", json: { collection: "c", url: "http://127.0.0.1:9/x", secret: hookSecret } });
    expect(hook.status, hook.text).toBe(201);
    expect((await t.server.request("/api/collections/_hooks/documents/", { project: p.project, token: secret })).text).toContain(hookSecret);
    // A token addressed by its secret (CONTRACT §9): the path, and the answer's `_id` which is the path's.
    for (const path of [`/api/collections/_tokens/documents/${minted}/`, `/api/collections/%5Ftokens/documents/${minted}/?x=1`]) {
      const bySecret = await t.server.request(path, { project: p.project, token: secret });
      expect(bySecret.status).toBe(200);
      expect(bySecret.body._id).toBe(minted);
    }
    await flushDebugLog();

    const stored = await t.db.query<{ text: string }>("SELECT record::text AS text FROM debug_records WHERE project_id = $1", [p.project]);
    expect(stored.rows.length).toBeGreaterThanOrEqual(calls.length);
    const everything = stored.rows.map((r) => r.text).join("\n");
    for (const credential of [secret, p.session, cookie.slice(name.length + 1), minted, hookSecret]) expect(everything).not.toContain(credential);
    expect(everything).toContain("%74oken=[redacted]");
    expect(everything).toContain("%74%6F%6B%65%6E=[redacted]");
  });
});

describe("credentials in the console", () => {
  it("the 500 log line redacts ?%74oken= and friends", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
    const app = new Hono();
    app.onError((error, c) => errorResponse(c, error));
    app.get("*", () => {
      throw new Error("boom");
    });
    for (const query of ["?%74oken=s3cret-1", "?TOKEN=s3cret-1", "?a=1&%74%6f%6b%65%6e=s3cret-1#x"]) {
      const answer = await app.fetch(new Request(`http://demo.localhost/api/collections/${query}`));
      expect(answer.status).toBe(500);
      expect(await answer.json()).toEqual({ message: "Internal error" });
    }
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).not.toContain("s3cret-1");
      expect(line).toContain("[redacted]");
    }
  });
});
