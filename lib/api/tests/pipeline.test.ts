import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownerWithProject } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/test-server";

let server: TestServer;
let owner: Awaited<ReturnType<typeof ownerWithProject>>;
beforeAll(async () => {
  server = await startTestServer();
  owner = await ownerWithProject(server);
});
afterAll(() => server.close());

describe("the request pipeline", () => {
  it("answers unknown paths with 404 Page not found, any method", async () => {
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      const response = await server.request("/api/nothing/here/", { method });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: "Page not found" });
    }
    // A collection property path may be any depth (401 without credentials like any route).
    expect((await server.request("/api/collections/x/nothing/", { project: owner.project, method: "PUT" })).status).toBe(401);
    expect((await server.request("/api/collections/x/nothing/", { project: owner.project, method: "POST" })).status).toBe(401);
  });

  it("answers 405 with Allow for a path that exists with other methods", async () => {
    const cases: [string, string, Record<string, string>, string[]][] = [
      ["DELETE", "/api/user/", {}, ["GET", "PATCH", "POST"]],
      ["POST", "/api/info/", { "x-project": owner.project }, ["GET"]],
      ["PATCH", "/api/collections/", { "x-project": owner.project }, ["GET", "POST", "PUT"]],
      ["DELETE", "/api/user/projects/", {}, ["GET", "POST"]],
      ["PUT", "/api/health/", {}, ["GET"]],
    ];
    for (const [method, path, headers, allowed] of cases) {
      const res = await server.request(path, { method, headers });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.body).toEqual({ message: "Method not allowed" });
      const allow = res.headers.get("allow")!.split(", ");
      expect(allow).toEqual(expect.arrayContaining([...allowed, "OPTIONS"]));
      expect(allow).not.toContain(method);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    }
    // A document list's PATCH and DELETE too (they also match the collection's property routes).
    for (const method of ["PATCH", "DELETE"]) {
      const list = await server.request("/api/collections/notes/documents/", { method, headers: { "x-project": owner.project, authorization: `Token ${owner.token}` } });
      expect(list.status, method).toBe(405);
      expect(list.headers.get("allow")).toBe("GET, HEAD, POST, PUT, OPTIONS");
    }
    // The lists of system collections, and the feed, export and import of a collection (they
    // would otherwise be taken for a collection's properties: 404 or 422 "cannot be changed").
    const auth = { "x-project": owner.project, authorization: `Token ${owner.token}` };
    const more: [string, string, string][] = [
      ["PATCH", "/api/collections/_tokens/documents/", "GET, HEAD, POST, PUT, OPTIONS"],
      ["DELETE", "/api/collections/_users/documents/", "GET, HEAD, POST, PUT, OPTIONS"],
      ["DELETE", "/api/collections/_hooks_history/documents/", "GET, HEAD, POST, PUT, OPTIONS"],
      ["PATCH", "/api/collections/_notification/documents/", "GET, HEAD, POST, PUT, OPTIONS"],
      ["PUT", "/api/collections/_files/documents/", "GET, HEAD, POST, OPTIONS"],
      ["DELETE", "/api/collections/_files/documents/", "GET, HEAD, POST, OPTIONS"],
      ["PUT", "/api/collections/notes/events/", "GET, HEAD, OPTIONS"],
      ["DELETE", "/api/collections/notes/events", "GET, HEAD, OPTIONS"],
      ["POST", "/api/collections/notes/export/", "GET, HEAD, OPTIONS"],
      ["PATCH", "/api/collections/notes/export/", "GET, HEAD, OPTIONS"],
      ["GET", "/api/collections/notes/import/", "POST, OPTIONS"],
      ["DELETE", "/api/collections/notes/import/", "POST, OPTIONS"],
    ];
    for (const [method, path, allow] of more) {
      const res = await server.request(path, { method, headers: auth, json: method === "GET" ? undefined : {} });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.body).toEqual({ message: "Method not allowed" });
      expect(res.headers.get("allow"), `${method} ${path}`).toBe(allow);
      // A property of the path, as a 404 is: the same 405 before any credentials are looked at.
      const anonymous = await server.request(path, { method, headers: { "x-project": owner.project }, json: method === "GET" ? undefined : {} });
      expect(anonymous.status, `anonymous ${method} ${path}`).toBe(405);
    }
    // A method no route knows: Allow names what the path takes, not the methods that only refuse.
    for (const [path, allowed] of [
      ["/api/collections/notes/documents/", ["GET", "HEAD", "POST", "PUT", "OPTIONS"]],
      ["/api/collections/notes/export/", ["GET", "HEAD", "OPTIONS"]],
      ["/api/collections/notes/events/", ["GET", "HEAD", "OPTIONS"]],
      ["/api/collections/_files/documents/", ["GET", "HEAD", "POST", "OPTIONS"]],
    ] as const) {
      const res = await server.request(path, { method: "PROPFIND", headers: auth });
      expect(res.status, path).toBe(405);
      expect(res.headers.get("allow")!.split(", ").sort(), path).toEqual([...allowed].sort());
    }
    // Without the trailing slash too; an unknown path stays 404.
    expect((await server.request("/api/info", { method: "POST", headers: { "x-project": owner.project } })).status).toBe(405);
    expect((await server.request("/api/infox/", { method: "POST" })).status).toBe(404);
  });

  it("refuses an X-Action on one resource (400, or 403 for a list verb) and creates nothing", async () => {
    const auth = { project: owner.project, token: owner.token };
    const cases: [string, Record<string, unknown>, unknown][] = [
      ["/api/collections/_tokens/documents/t-verb/", auth, { name: "x" }],
      ["/api/collections/_users/documents/verb@example.test/", auth, {}],
      ["/api/collections/_files/documents/f-verb/", auth, {}],
      ["/api/collections/verbs/import/", auth, {}],
      [`/api/user/projects/verb-${Date.now().toString(36)}/`, { session: owner.session }, {}],
    ];
    for (const [path, credentials, json] of cases) {
      const listVerb = await server.request(path, { ...credentials, action: "delete", json });
      expect(listVerb.status, `${path} ${listVerb.text}`).toBe(403);
      expect(listVerb.body).toEqual({ message: "Action delete is not allowed here" });
      const unknown = await server.request(path, { ...credentials, action: "frob", json });
      expect(unknown.status, path).toBe(400);
      expect(unknown.body).toEqual({ message: "Unknown action: frob" });
      expect((await server.request(path, credentials)).status, path).toBeGreaterThanOrEqual(404);
    }
  });

  it("HEAD on a JSON route answers GET's headers, Content-Length included, and no body", async () => {
    const { rawRequest } = await import("../../testing/raw-request");
    const headers = { "x-project": owner.project, authorization: `Token ${owner.token}` };
    for (const path of ["/api/collections/", "/api/collections/_tokens/documents/", "/api/collections/_users/"]) {
      const get = await rawRequest(server.port, path, { headers });
      const head = await rawRequest(server.port, path, { method: "HEAD", headers });
      expect(head.status, path).toBe(200);
      expect(head.text).toBe("");
      expect(head.headers["content-length"], path).toBe(String(Buffer.byteLength(get.text)));
      expect(head.headers["content-type"]).toBe(get.headers["content-type"]);
    }
  });

  it("serves a path with and without its trailing slash, never redirecting", async () => {
    const withSlash = await server.request("/api/info/", { project: owner.project, session: owner.session });
    const without = await server.request("/api/info", { project: owner.project, session: owner.session });
    expect(withSlash.status).toBe(200);
    expect(without.status).toBe(200);
    expect(without.body).toEqual(withSlash.body);
  });

  it("resolves the project from the host", async () => {
    const response = await server.request("/api/info/", { host: `${owner.project}.localhost`, session: owner.session });
    expect(response.status).toBe(200);
    expect(response.body._id).toBe(owner.project);
    expect(response.body.status).toEqual({ files_size: 0, data_size: 0, is_active: true });
  });

  it("accepts Token, Bearer and ?token= credentials", async () => {
    const bearer = await server.request("/api/collections/", { project: owner.project, headers: { authorization: `Bearer ${owner.token}` } });
    expect(bearer.status).toBe(200);
    const query = await server.request(`/api/collections/?token=${owner.token}`, { project: owner.project });
    expect(query.status).toBe(200);
  });

  it("answers 404 for an unknown project, 401 without or with unknown credentials", async () => {
    const unknown = await server.request("/api/info/", { project: "no-such-project", token: owner.token });
    expect(unknown).toMatchObject({ status: 404, body: { message: "Project not found." } });
    const anonymous = await server.request("/api/info/", { project: owner.project });
    expect(anonymous).toMatchObject({ status: 401, body: { message: "Not authorized" } });
    const forged = await server.request("/api/info/", { project: owner.project, token: "forged" });
    expect(forged).toMatchObject({ status: 401, body: { message: "Not authorized" } });
  });

  it("refuses malformed JSON with 400 and a non-JSON body with 415", async () => {
    const malformed = await server.request("/api/collections/_tokens/documents/", {
      project: owner.project,
      token: owner.token,
      body: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(malformed).toMatchObject({ status: 400, body: { message: "Malformed JSON in request body" } });
    // A byte order mark before the JSON is no error (RFC 8259 §8.1); one inside a string is kept.
    const marked = await server.request("/api/collections/bom/documents/", {
      project: owner.project,
      token: owner.token,
      body: '\ufeff{"_id": "b1", "s": "\ufeffx"}',
      headers: { "content-type": "application/json" },
    });
    expect(marked).toMatchObject({ status: 201, body: { _id: "b1", s: "\ufeffx" } });
    const xml = await server.request("/api/collections/_tokens/documents/", {
      project: owner.project,
      token: owner.token,
      body: "<a/>",
      headers: { "content-type": "application/xml" },
    });
    expect(xml.status).toBe(415);
    // text/plain is taken when it holds JSON; other text is neither JSON nor multipart.
    const as = { project: owner.project, token: owner.token };
    expect((await server.request("/api/collections/plain/documents/", { ...as, body: '{"a":1}', headers: { "content-type": "text/plain" } })).status).toBe(201);
    const text = await server.request("/api/collections/plain/documents/", { ...as, body: "hello world", headers: { "content-type": "text/plain" } });
    expect(text).toMatchObject({ status: 415, body: { message: "Request body must be JSON or multipart/form-data" } });
    // Multipart is never a 415 (CONTRACT §11): a body of JSON literal parts is the same object on
    // every route that takes one; a file part where no files are taken is.
    const literals = new FormData();
    literals.append("name", '"from a form"');
    const token = await server.request("/api/collections/_tokens/documents/", { ...as, body: literals });
    expect(token.status, token.text).toBe(201);
    expect(token.body.name).toBe("from a form");
    const withFile = new FormData();
    withFile.append("name", '"x"');
    withFile.append("file", new Blob(["bytes"]), "f.txt");
    const refused = await server.request("/api/collections/_tokens/documents/", { ...as, body: withFile });
    expect(refused).toMatchObject({ status: 415, body: { message: "File parts are not taken here: only document and _files writes take files" } });
    // Property paths take a value as multipart literals too (PUT takes a file besides).
    await server.request("/api/collections/plain/documents/mp1/", { ...as, method: "PUT", json: { meta: { a: 1 } } });
    const metaForm = new FormData();
    metaForm.append("b", "2");
    const patched = await server.request("/api/collections/plain/documents/mp1/meta/", { ...as, method: "PATCH", body: metaForm });
    expect(patched).toMatchObject({ status: 200, body: { a: 1, b: 2 } });
    const created = await server.request("/api/collections/plain/documents/mp1/extra/", { ...as, method: "POST", body: metaForm });
    expect(created).toMatchObject({ status: 201, body: { b: 2 } });
    const described = await server.request("/api/collections/plain/schema/properties/title/", { ...as, method: "PUT", body: (() => { const f = new FormData(); f.append("type", '"string"'); return f; })() });
    expect(described.status, described.text).toBe(201);
    const brokenForm = await server.request("/api/user/projects/", { session: owner.session, body: "--x\r\n\r\n--x--\r\n", headers: { "content-type": "multipart/form-data; boundary=x" } });
    expect(brokenForm).toMatchObject({ status: 400, body: { message: "Malformed multipart body" } });
    // An X-Action on one collection is never taken for a create.
    const verb = await server.request("/api/collections/plain/", { ...as, action: "frob", json: {} });
    expect(verb).toMatchObject({ status: 400, body: { message: "Unknown action: frob" } });
    // A project id that is there but no string is a validation error.
    const id = await server.request("/api/user/projects/", { session: owner.session, json: { _id: 5 } });
    expect(id.status).toBe(422);
    expect(id.body.errors[0].property).toBe("_id");
  });

  it("refuses a compressed body (any Content-Encoding but identity) with 415 before reading it, on JSON, multipart and import", async () => {
    const as = { project: owner.project, token: owner.token };
    const json = '{"_id":"enc","a":1}';
    const gzipped = gzipSync(json);
    const message = (coding: string) => `Content-Encoding "${coding}" is not taken: send the body uncompressed`;
    for (const [coding, body] of [["gzip", gzipped], ["br", json], ["deflate, gzip", json]] as const) {
      const res = await server.request("/api/collections/encoded/documents/", { ...as, body, headers: { "content-type": "application/json", "content-encoding": coding } });
      expect(res, coding).toMatchObject({ status: 415, body: { message: message(coding) } });
    }
    const form = new FormData();
    form.append("a", "1");
    const multipart = await server.request("/api/collections/encoded/documents/", { ...as, body: form, headers: { "content-encoding": "gzip" } });
    expect(multipart).toMatchObject({ status: 415, body: { message: message("gzip") } });
    const imported = await server.request("/api/collections/encoded/import/?format=jsonl", { ...as, body: gzipped, headers: { "content-type": "application/x-ndjson", "content-encoding": "gzip" } });
    expect(imported).toMatchObject({ status: 415, body: { message: message("gzip") } });
    expect((await server.request("/api/collections/encoded/documents/enc/", as)).status).toBe(404);
    // "identity" is no coding at all.
    const plain = await server.request("/api/collections/encoded/documents/", { ...as, body: json, headers: { "content-type": "application/json", "content-encoding": "identity" } });
    expect(plain.status, plain.text).toBe(201);
  });

  it("refuses a JSON body over the limit with 413", async () => {
    const big = "x".repeat(17 * 1024 * 1024);
    const response = await server.request("/api/user/", { body: JSON.stringify({ email: big }), headers: { "content-type": "application/json" } });
    expect(response.status).toBe(413);
    expect(response.body.message).toBe("Request body is too large");
  });

  it("answers 403 to every call on an inactive project, and reactivation works", async () => {
    const off = await server.request(`/api/user/projects/${owner.project}/`, {
      method: "PATCH",
      session: owner.session,
      json: { status: { is_active: false } },
    });
    expect(off.status).toBe(200);
    expect(off.body.status.is_active).toBe(false);
    const blocked = await server.request("/api/info/", { project: owner.project, token: owner.token });
    expect(blocked).toMatchObject({ status: 403, body: { message: "Project is not active." } });
    // Every call: without credentials, with unknown ones, with a session, on any route.
    for (const as of [{}, { token: "not-a-token" }, { session: owner.session }]) {
      const res = await server.request("/api/collections/any/documents/", { project: owner.project, ...as });
      expect(res, JSON.stringify(as)).toMatchObject({ status: 403, body: { message: "Project is not active." } });
    }
    const on = await server.request(`/api/user/projects/${owner.project}/`, {
      method: "PATCH",
      session: owner.session,
      json: { status: { is_active: true } },
    });
    expect(on.status).toBe(200);
    expect((await server.request("/api/collections/", { project: owner.project, token: owner.token })).status).toBe(200);
  });
});
