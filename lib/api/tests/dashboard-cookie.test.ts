import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Auth } from "@auth/core";
import { authConfig } from "../../auth/auth-config";
import { ownerWithProject } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/test-server";

let server: TestServer;
let owner: Awaited<ReturnType<typeof ownerWithProject>>;
let cookie: string;
let origin: string;
beforeAll(async () => {
  server = await startTestServer();
  owner = await ownerWithProject(server);
  const name = "authjs.session-token";
  const token = await encode({ token: { sessionId: owner.session }, secret: process.env.ARCA_SECRET!, salt: name });
  cookie = `${name}=${token}`;
  origin = `http://${new URL(server.url).host}`;
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

  it("authorizes a write only from the dashboard's origin (CONTRACT §1, CSRF)", async () => {
    const patch = (headers: Record<string, string>) =>
      server.request("/api/user/", { method: "PATCH", json: { name: "Cookie" }, headers: { cookie, ...headers } });
    expect((await patch({ origin })).status).toBe(200);
    expect((await patch({ "sec-fetch-site": "same-origin" })).status).toBe(200);
    // Anything else: the cookie is no credential at all, so 401, not 403.
    const refused = { status: 401, body: { message: "Not authorized" } };
    expect(await patch({ origin: "http://evil.example" })).toMatchObject(refused);
    expect(await patch({ origin: "null" })).toMatchObject(refused);
    expect(await patch({ "sec-fetch-site": "cross-site" })).toMatchObject(refused);
    expect(await patch({ "sec-fetch-site": "same-site" })).toMatchObject(refused);
    expect(await patch({ origin: "http://evil.example", "sec-fetch-site": "cross-site" })).toMatchObject(refused);
    // Signals that contradict each other: another origin decides.
    expect(await patch({ origin: "http://evil.example", "sec-fetch-site": "same-origin" })).toMatchObject(refused);
    // An unsafe method with neither header: a form post from an old browser, or a script. Refused.
    expect(await patch({})).toMatchObject(refused);
    expect((await server.request("/api/user/", { headers: { cookie } })).body.name).toBe("Cookie");
  });

  it("refuses a cross-origin form POST that carries the cookie", async () => {
    const created = await server.request("/api/collections/", {
      project: owner.project,
      body: JSON.stringify({ _id: "csrf" }),
      headers: { cookie, "content-type": "text/plain", origin: "http://evil.example", "sec-fetch-site": "cross-site" },
    });
    expect(created).toMatchObject({ status: 401, body: { message: "Not authorized" } });
    const listed = await server.request("/api/collections/csrf/", { project: owner.project, headers: { cookie } });
    expect(listed.status).toBe(404);
  });

  it("lets safe methods use the cookie with neither header, or from the dashboard, but not from other sites", async () => {
    expect((await server.request("/api/info/", { project: owner.project, headers: { cookie } })).status).toBe(200);
    expect((await server.request("/api/info/", { project: owner.project, headers: { cookie, origin } })).status).toBe(200);
    expect((await server.request("/api/info/", { project: owner.project, headers: { cookie, "sec-fetch-site": "same-origin" } })).status).toBe(200);
    const cross = await server.request("/api/info/", { project: owner.project, headers: { cookie, origin: "http://evil.example" } });
    expect(cross).toMatchObject({ status: 401, body: { message: "Not authorized" } });
    const navigated = await server.request("/api/user/", { headers: { cookie, "sec-fetch-site": "cross-site" } });
    expect(navigated.status).toBe(401);
  });

  it("ignores a forged cookie", async () => {
    const forged = await encode({ token: { sessionId: owner.session }, secret: "not-the-secret", salt: "authjs.session-token" });
    const response = await server.request("/api/user/", { headers: { cookie: `authjs.session-token=${forged}` } });
    expect(response.status).toBe(401);
  });

  it("is unharmed by other cookies with malformed escapes", async () => {
    const response = await server.request("/api/user/", { headers: { cookie: `a=%%%; ${cookie}; b=%E0%A4%A` } });
    expect(response.status).toBe(200);
    expect((await server.request("/api/user/", { headers: { cookie: "a=%%%" } })).status).toBe(401);
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

describe("next-auth's cookies", () => {
  async function signIn(base: string, headers: Record<string, string> = {}) {
    const csrf = await Auth(new Request(`${base}/auth/csrf`, { headers }), authConfig());
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const csrfCookies = csrf.headers.getSetCookie();
    const form = new URLSearchParams({ email: owner.email, password: owner.password, csrfToken, callbackUrl: `${base}/projects` });
    const answer = await Auth(
      new Request(`${base}/auth/callback/credentials`, {
        method: "POST",
        body: form,
        headers: { ...headers, "content-type": "application/x-www-form-urlencoded", cookie: csrfCookies.map((c) => c.split(";")[0]).join("; ") },
      }),
      authConfig(),
    );
    return [...csrfCookies, ...answer.headers.getSetCookie()];
  }

  it("are HttpOnly and SameSite=Lax over http", async () => {
    const cookies = await signIn("http://localhost:3000");
    const session = cookies.find((c) => c.startsWith("authjs.session-token="));
    expect(session, cookies.join("\n")).toBeDefined();
    for (const set of cookies.filter((c) => /^(authjs|__Secure-authjs|__Host-authjs)\./.test(c))) {
      expect(set).toMatch(/;\s*HttpOnly/i);
      expect(set).toMatch(/;\s*SameSite=Lax/i);
    }
  });

  it("add Secure behind HTTPS", async () => {
    const cookies = await signIn("https://arca.example");
    const session = cookies.find((c) => c.startsWith("__Secure-authjs.session-token="));
    expect(session, cookies.join("\n")).toBeDefined();
    expect(session).toMatch(/;\s*Secure/i);
    expect(session).toMatch(/;\s*HttpOnly/i);
    expect(session).toMatch(/;\s*SameSite=Lax/i);
  });
});
