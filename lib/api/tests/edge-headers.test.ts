import { afterEach, describe, expect, it } from "vitest";
import { apiSuite } from "../../testing/api-suite";
import { ALLOWED_HEADERS, EXPOSED_HEADERS } from "../../http/edge-headers";

/** CORS (CONTRACT §1), frame protection and the referrer policy on every `/api/` answer. */
const t = apiSuite();
afterEach(() => {
  delete process.env.ARCA_CORS_ORIGINS;
});

const EXPOSE = "Content-Range, Content-Length, Content-Disposition, ETag, Accept-Ranges, Retry-After, Location";
const ALLOW_HEADERS = "Authorization, Content-Type, X-Action, X-Project, X-Process-Only, Range, If-None-Match, If-Range, If-Match";

function expectEdgeHeaders(headers: Headers, origin = "*") {
  expect(headers.get("access-control-allow-origin")).toBe(origin);
  expect(headers.get("access-control-expose-headers")).toBe(EXPOSE);
  expect(headers.get("access-control-allow-credentials")).toBeNull();
  expect(headers.get("x-frame-options")).toBe("DENY");
  expect(headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
}

describe("CORS on every /api/ answer", () => {
  it("uses the contract's exact lists", () => {
    expect(EXPOSED_HEADERS).toBe(EXPOSE);
    expect(ALLOWED_HEADERS).toBe(ALLOW_HEADERS);
  });

  it("on successes, errors and 404s alike", async () => {
    const as = { project: t.owner.project, token: t.owner.token, headers: { origin: "http://elsewhere.example" } };
    const answers = [
      await t.server.request("/api/collections/", as),
      await t.server.request("/api/collections/", { ...as, token: "forged" }),
      await t.server.request("/api/collections/nope/documents/", as),
      await t.server.request("/api/no/such/path/", as),
      await t.server.request("/api/user/", { headers: as.headers }),
      await t.server.request("/api/collections/x/documents/", { ...as, method: "POST", body: "{", headers: { ...as.headers, "content-type": "application/json" } }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 401, 404, 404, 401, 400]);
    for (const answer of answers) {
      expectEdgeHeaders(answer.headers);
      expect(answer.headers.get("content-security-policy")).toBe("frame-ancestors 'none'");
    }
  });

  it("answers a preflight on any /api/ path with 204 before any lookup or authentication", async () => {
    for (const path of ["/api/collections/posts/documents/", "/api/no/such/path/", "/api/user/"]) {
      const answer = await t.server.request(path, {
        method: "OPTIONS",
        project: "no-such-project",
        headers: { origin: "http://elsewhere.example", "access-control-request-method": "PUT", "access-control-request-headers": "authorization, x-action" },
      });
      expect(answer.status, path).toBe(204);
      expect(answer.text).toBe("");
      expectEdgeHeaders(answer.headers);
      expect(answer.headers.get("access-control-allow-methods")).toBe("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
      expect(answer.headers.get("access-control-allow-headers")).toBe(ALLOW_HEADERS);
      expect(answer.headers.get("access-control-max-age")).toBe("86400");
    }
  });

  it("allows Last-Event-ID and the date conditionals when a preflight asks for them (a fetch()-based feed resumes)", async () => {
    const answer = await t.server.request("/api/collections/posts/events/", {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "GET", "access-control-request-headers": "authorization,last-event-id,if-modified-since,x-unknown" },
    });
    expect(answer.status).toBe(204);
    expect(answer.headers.get("access-control-allow-headers")).toBe(`${ALLOW_HEADERS}, Last-Event-ID, If-Modified-Since`);
    expect(answer.headers.get("vary")).toMatch(/Access-Control-Request-Headers/);
  });

  it("a 401 names the scheme it wants in WWW-Authenticate (RFC 9110), never Basic", async () => {
    const answer = await t.server.request("/api/collections/", { project: t.owner.project });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ message: "Not authorized" });
    expect(answer.headers.get("www-authenticate")).toBe('Token realm="arca"');
    const authorized = await t.server.request("/api/collections/", { project: t.owner.project, token: t.owner.token });
    expect(authorized.headers.get("www-authenticate")).toBeNull();
  });

  it("narrows to ARCA_CORS_ORIGINS: the listed Origin echoed with Vary, others get none", async () => {
    process.env.ARCA_CORS_ORIGINS = "https://app.example, http://localhost:5173/";
    const as = { project: t.owner.project, token: t.owner.token };
    const listed = await t.server.request("/api/collections/", { ...as, headers: { origin: "http://localhost:5173" } });
    expect(listed.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(listed.headers.get("vary")).toMatch(/Origin/);
    const other = await t.server.request("/api/collections/", { ...as, headers: { origin: "https://evil.example" } });
    expect(other.status).toBe(200);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    expect(other.headers.get("vary")).toMatch(/Origin/);
    const preflight = await t.server.request("/api/collections/", { method: "OPTIONS", headers: { origin: "https://evil.example" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    const allowed = await t.server.request("/api/collections/", { method: "OPTIONS", headers: { origin: "https://app.example" } });
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(allowed.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("reaches file downloads written straight to the socket, which keep their sandbox CSP", async () => {
    const as = { project: t.owner.project, token: t.owner.token };
    const form = new FormData();
    form.append("file", new Blob(["0123456789"], { type: "text/html" }), "page.html");
    const uploaded = await t.server.request("/api/collections/_files/documents/edge-page/", { ...as, method: "PUT", body: form });
    expect(uploaded.status, uploaded.text).toBe(201);
    const range = await t.server.request("/api/collections/_files/documents/edge-page/content/", { ...as, headers: { range: "bytes=2-5", origin: "http://elsewhere.example" } });
    expect(range.status).toBe(206);
    expect(range.text).toBe("2345");
    expect(range.headers.get("content-range")).toBe("bytes 2-5/10");
    expectEdgeHeaders(range.headers);
    expect(range.headers.get("content-security-policy")).toBe("sandbox");
  });
});

describe("the Next door (app/api/[[...path]]/route.ts)", () => {
  it("exports OPTIONS and answers with the same headers", async () => {
    const route = await import("../../../app/api/[[...path]]/route");
    const preflight = await route.OPTIONS(new Request(`${t.server.url}/api/collections/`, { method: "OPTIONS", headers: { origin: "http://elsewhere.example" } }));
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-max-age")).toBe("86400");
    expectEdgeHeaders(preflight.headers);
    const missing = await route.GET(new Request(`${t.server.url}/api/no/such/path/`));
    expect(missing.status).toBe(404);
    expectEdgeHeaders(missing.headers);
    expect(missing.headers.get("content-security-policy")).toBe("frame-ancestors 'none'");
    const listed = await route.GET(new Request(`${t.server.url}/api/collections/`, { headers: { authorization: `Token ${t.owner.token}`, "x-project": t.owner.project } }));
    expect(listed.status).toBe(200);
    expectEdgeHeaders(listed.headers);
  });
});

describe("request-targets a parser turns into /api paths", () => {
  it("are the API's: served as the path they name (empty and dot segments dropped), never redirected or left to the dashboard's handler", async () => {
    const { rawRequest } = await import("../../testing/raw-request");
    const cases: [string, string, number][] = [
      ["GET", "//api/health", 200],
      ["POST", "//api/collections/x/documents/", 404], // the bare host: no project
      ["OPTIONS", "//api/collections/", 204],
      ["GET", "/api\\health", 400],
      ["GET", "/./api/health", 200],
      ["GET", "/%61pi/health", 404],
      ["GET", "/x/../api/health", 200],
      ["GET", "/api//health", 200],
      ["GET", "/api/./health/", 200],
      ["GET", "/api/x/../health?a=b//c", 200],
      ["OPTIONS", "/api//collections//", 204],
    ];
    for (const [method, target, status] of cases) {
      const res = await rawRequest(t.server.port, target, {
        method,
        headers: { origin: "http://elsewhere.example", "access-control-request-method": "POST", "content-type": "application/json" },
        body: method === "POST" ? "{}" : undefined,
      });
      expect(res.status, `${method} ${target} ${res.text}`).toBe(status);
      expect(res.headers["access-control-allow-origin"], `${method} ${target}`).toBe("*");
      if (status >= 400) expect(res.body, `${method} ${target}`).toEqual(expect.objectContaining({ message: expect.any(String) }));
      if (status === 200) expect(res.body, `${method} ${target}`).toEqual({ status: "ok" });
    }
    // An empty segment inside the path stands for a missing id: never dropped into another path.
    await t.server.request("/api/collections/notes/documents/title/", { project: t.owner.project, token: t.owner.token, method: "PUT", json: { a: 1 } });
    for (const [method, target] of [["DELETE", "/api/collections/notes/documents//title/"], ["PATCH", "/api/collections/notes/documents//title/"], ["DELETE", "/api/collections//documents/"], ["GET", "/api/collections/notes//documents/title/"]]) {
      const res = await rawRequest(t.server.port, target, {
        method,
        headers: { "x-project": t.owner.project, authorization: `Token ${t.owner.token}`, "content-type": "application/json" },
        body: method === "PATCH" ? '{"a":2}' : undefined,
      });
      expect(res.status, `${method} ${target}`).toBe(404);
      expect(res.body).toEqual({ message: "Page not found" });
    }
    expect((await t.server.request("/api/collections/notes/documents/title/", { project: t.owner.project, token: t.owner.token })).body).toEqual({ _id: "title", a: 1 });
    // A path that is not the API's stays the dashboard's.
    expect((await rawRequest(t.server.port, "/apix/health")).headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("requests Node's HTTP parser refuses", () => {
  async function rawExchange(bytes: string): Promise<string> {
    const net = await import("node:net");
    return new Promise((resolve, reject) => {
      const socket = net.connect(t.server.port, "127.0.0.1", () => socket.write(bytes));
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk) => (text += chunk));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
      socket.setTimeout(5000, () => socket.destroy(new Error(`no answer to ${JSON.stringify(bytes.slice(0, 40))}`)));
    });
  }

  it("get the contract's JSON error with CORS headers: an unknown method 400, a header block too large 431", async () => {
    const unknown = await rawExchange("FOO /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n");
    expect(unknown).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(unknown).toMatch(/\r\naccess-control-allow-origin: \*\r\n/);
    expect(unknown.split("\r\n\r\n")[1]).toBe('{"message":"Bad request: malformed HTTP request"}');
    const huge = await rawExchange(`GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(huge.split("\r\n\r\n")[1]).toBe('{"message":"Request header fields too large"}');
  });

  it("the absolute form is served as its path, its authority the Host; a target that is no path and a missing Host get the JSON 400 with CORS", async () => {
    const absolute = await rawExchange(`GET http://localhost/api/collections/?x=1 HTTP/1.1\r\nHost: elsewhere\r\nConnection: close\r\nX-Project: ${t.owner.project}\r\nAuthorization: Token ${t.owner.token}\r\n\r\n`);
    expect(absolute, absolute).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    // Its authority names the project as a Host would.
    const byHost = await rawExchange(`GET http://${t.owner.project}.localhost/api/collections/ HTTP/1.1\r\nConnection: close\r\nAuthorization: Token ${t.owner.token}\r\n\r\n`);
    expect(byHost).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    for (const line of ["GET * HTTP/1.1", "OPTIONS * HTTP/1.1"]) {
      const star = await rawExchange(`${line}\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
      expect(star, line).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(star).toMatch(/\r\naccess-control-allow-origin: \*\r\n/);
      expect(star.split("\r\n\r\n")[1]).toBe('{"message":"Bad request: the request-target is not a path"}');
    }
    for (const version of ["1.1", "1.0"]) {
      const hostless = await rawExchange(`GET /api/health HTTP/${version}\r\nConnection: close\r\n\r\n`);
      expect(hostless, version).toMatch(/^HTTP\/1\.[01] 400 Bad Request\r\n/);
      expect(hostless).toMatch(/\r\naccess-control-allow-origin: \*\r\n/);
      expect(JSON.parse(hostless.split("\r\n\r\n")[1]).message).toMatch(/^Bad request/);
    }
  });

  it("read every header line within the size limit: none dropped after the 2,000th (X-Project there still counts)", async () => {
    const filler = Array.from({ length: 2500 }, (_, i) => `x${i}: 1\r\n`).join("");
    const answer = await rawExchange(`GET /api/collections/ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${filler}X-Project: ${t.owner.project}\r\nAuthorization: Token ${t.owner.token}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  });
});
