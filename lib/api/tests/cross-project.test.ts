import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownerWithProject } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/test-server";

/**
 * Every project-scoped route, addressed with project A's credentials at project B: nothing of B
 * may be read or changed. A's token is unknown in B (401); A's owner is not B's member (403).
 * Addressed at A with B's ids, B's data is indistinguishable from none (404).
 */
let server: TestServer;
let a: Awaited<ReturnType<typeof ownerWithProject>>;
let b: Awaited<ReturnType<typeof ownerWithProject>>;

const routes: Array<[method: string, path: string, body?: unknown, action?: string]> = [
  ["GET", "/api/info/"],
  ["GET", "/api/collections/"],
  ["POST", "/api/collections/", { filter: {} }, "find"],
  ["POST", "/api/collections/", { _id: "intruder" }],
  ["GET", "/api/collections/posts/"],
  ["GET", "/api/collections/posts/description/"],
  ["POST", "/api/collections/posts/", {}],
  ["PUT", "/api/collections/posts/", { description: "x" }],
  ["PATCH", "/api/collections/posts/", { description: "x" }],
  ["DELETE", "/api/collections/posts/"],
  ["GET", "/api/collections/posts/documents/"],
  ["POST", "/api/collections/posts/documents/", { filter: {} }, "find"],
  ["POST", "/api/collections/posts/documents/", { filter: {}, operation: { $set: { title: "x" } } }, "update"],
  ["POST", "/api/collections/posts/documents/", { filter: {}, operation: { $set: { title: "x" } } }, "upsert"],
  ["POST", "/api/collections/posts/documents/", { filter: {} }, "delete"],
  ["POST", "/api/collections/posts/documents/", { title: "x" }],
  ["GET", "/api/collections/posts/documents/d1/"],
  ["POST", "/api/collections/posts/documents/d2/", { title: "x" }],
  ["PUT", "/api/collections/posts/documents/d1/", { title: "x" }],
  ["PATCH", "/api/collections/posts/documents/d1/", { title: "x" }],
  ["DELETE", "/api/collections/posts/documents/d1/"],
  ["GET", "/api/collections/posts/documents/d1/title/"],
  ["PUT", "/api/collections/posts/documents/d1/title/", "x"],
  ["DELETE", "/api/collections/posts/documents/d1/title/"],
  ["GET", "/api/collections/_tokens/documents/"],
  ["POST", "/api/collections/_tokens/documents/", { name: "x" }],
  ["GET", "/api/collections/_tokens/documents/tb/"],
  ["PATCH", "/api/collections/_tokens/documents/tb/", { is_active: false }],
  ["DELETE", "/api/collections/_tokens/documents/tb/"],
  ["GET", "/api/collections/_users/documents/"],
  ["POST", "/api/collections/_users/documents/", { _id: "someone@example.test" }],
  ["GET", "/api/collections/_notification/documents/"],
  ["GET", "/api/collections/_files/documents/"],
  ["GET", "/api/collections/_files/documents/fb/"],
  ["GET", "/api/collections/_files/documents/fb/content/"],
  ["HEAD", "/api/collections/_files/documents/fb/content/"],
  ["DELETE", "/api/collections/_files/documents/fb/"],
  ["GET", "/api/collections/posts/documents/d1/attachment/"],
  ["GET", "/api/collections/posts/documents/d1/attachment/content/"],
];

beforeAll(async () => {
  server = await startTestServer();
  a = await ownerWithProject(server);
  b = await ownerWithProject(server);
  const post = await server.request("/api/collections/posts/documents/", { project: b.project, token: b.token, json: { _id: "d1", title: "secret" } });
  expect(post.status).toBe(201);
  const token = await server.request("/api/collections/_tokens/documents/", { project: b.project, token: b.token, json: { _id: "tb", name: "b" } });
  expect(token.status).toBe(201);
  const direct = new FormData();
  direct.append("file", new Blob(["secret bytes of B"], { type: "text/plain" }), "b.txt");
  const file = await server.request("/api/collections/_files/documents/fb/", { method: "PUT", project: b.project, token: b.token, body: direct });
  expect(file.status, file.text).toBe(201);
  const attached = new FormData();
  attached.append("attachment", new Blob(["attached bytes of B"], { type: "text/plain" }), "a.txt");
  const patch = await server.request("/api/collections/posts/documents/d1/", { method: "PATCH", project: b.project, token: b.token, body: attached });
  expect(patch.status, patch.text).toBe(200);
});
afterAll(() => server.close());

async function call(project: string, credentials: { token?: string; session?: string }, [method, path, body, action]: (typeof routes)[number]) {
  return server.request(path, { method, project, ...credentials, action, json: body });
}

describe("cross-project isolation", () => {
  it.each(routes)("A's token at B: %s %s", async (...route) => {
    const response = await call(b.project, { token: a.token }, route as (typeof routes)[number]);
    expect(response.status).toBe(401);
  });

  it.each(routes)("A's session at B: %s %s", async (...route) => {
    const response = await call(b.project, { session: a.session }, route as (typeof routes)[number]);
    expect(response.status).toBe(403);
  });

  it("B's files are untouched", async () => {
    const content = await server.request("/api/collections/_files/documents/fb/content/", { project: b.project, token: b.token });
    expect(content.text).toBe("secret bytes of B");
    const attached = await server.request("/api/collections/posts/documents/d1/attachment/content/", { project: b.project, token: b.token });
    expect(attached.text).toBe("attached bytes of B");
    expect((await server.request("/api/collections/_files/documents/fb/", { project: a.project, token: a.token })).status).toBe(404);
    expect((await server.request("/api/collections/_files/documents/fb/content/", { project: a.project, token: a.token })).status).toBe(404);
  });

  it("B's document and token are untouched", async () => {
    const doc = await server.request("/api/collections/posts/documents/d1/", { project: b.project, token: b.token });
    expect(doc.body).toMatchObject({ _id: "d1", title: "secret", attachment: { name: "a.txt" } });
    const token = await server.request("/api/collections/_tokens/documents/tb/", { project: b.project, token: b.token });
    expect(token.body.is_active).toBe(true);
  });

  it("at A, B's ids are indistinguishable from none", async () => {
    expect((await server.request("/api/collections/posts/documents/d1/", { project: a.project, token: a.token })).status).toBe(404);
    expect((await server.request("/api/collections/posts/", { project: a.project, token: a.token })).status).toBe(404);
    expect((await server.request("/api/collections/_tokens/documents/tb/", { project: a.project, token: a.token })).status).toBe(404);
    const list = await server.request("/api/collections/", { project: a.project, token: a.token });
    expect(JSON.stringify(list.body)).not.toContain('"posts"');
  });

  it("B's project is closed to A's account (403, known but not allowed); its id is taken (409 on POST and PUT, as ids are global) and nothing changes", async () => {
    for (const method of ["GET", "PATCH", "DELETE"]) {
      const response = await server.request(`/api/user/projects/${b.project}/`, { method, session: a.session, json: method === "GET" || method === "DELETE" ? undefined : { name: "x" } });
      expect(response, method).toMatchObject({ status: 403, body: { message: "You are not a member of this project." } });
    }
    for (const method of ["POST", "PUT"]) {
      const response = await server.request(`/api/user/projects/${b.project}/`, { method, session: a.session, json: { name: "x" } });
      expect(response, method).toMatchObject({ status: 409, body: { message: "Project already exists." } });
    }
    expect((await server.request(`/api/user/projects/${b.project}/`, { session: b.session })).body.name).not.toBe("x");
  });
});
