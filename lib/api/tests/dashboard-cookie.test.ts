import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownerWithProject } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/test-server";

let server: TestServer;
let owner: Awaited<ReturnType<typeof ownerWithProject>>;
let cookie: string;
beforeAll(async () => {
  server = await startTestServer();
  owner = await ownerWithProject(server);
  const name = "authjs.session-token";
  const token = await encode({ token: { sessionId: owner.session }, secret: process.env.ARCA_SECRET!, salt: name });
  cookie = `${name}=${token}`;
});
afterAll(() => server.close());

describe("the dashboard's next-auth cookie", () => {
  it("authenticates account and project calls", async () => {
    const me = await server.request("/api/user/", { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(owner.email);
    const info = await server.request("/api/info/", { project: owner.project, headers: { cookie } });
    expect(info.status).toBe(200);
  });

  it("allows writes from the same origin and refuses them cross-origin", async () => {
    const host = new URL(server.url).host;
    const same = await server.request("/api/user/", { method: "PATCH", json: { name: "Cookie" }, headers: { cookie, origin: `http://${host}` } });
    expect(same.status).toBe(200);
    const cross = await server.request("/api/user/", { method: "PATCH", json: { name: "Evil" }, headers: { cookie, origin: "http://evil.example" } });
    expect(cross).toMatchObject({ status: 403, body: { message: "Cross-origin request refused" } });
    const fetchSite = await server.request("/api/user/", { method: "PATCH", json: { name: "Evil" }, headers: { cookie, "sec-fetch-site": "cross-site" } });
    expect(fetchSite.status).toBe(403);
  });

  it("ignores a forged cookie", async () => {
    const forged = await encode({ token: { sessionId: owner.session }, secret: "not-the-secret", salt: "authjs.session-token" });
    const response = await server.request("/api/user/", { headers: { cookie: `authjs.session-token=${forged}` } });
    expect(response.status).toBe(401);
  });

  it("stops working once the Arca session ends", async () => {
    const { session } = await (async () => {
      const login = await server.request("/api/user/", { action: "login", json: { email: owner.email, password: owner.password } });
      return { session: login.body.sessionId as string };
    })();
    const name = "authjs.session-token";
    const token = await encode({ token: { sessionId: session }, secret: process.env.ARCA_SECRET!, salt: name });
    const own = `${name}=${token}`;
    expect((await server.request("/api/user/", { headers: { cookie: own } })).status).toBe(200);
    await server.request("/api/user/", { action: "logout", session });
    expect((await server.request("/api/user/", { headers: { cookie: own } })).status).toBe(401);
  });
});
