import { describe, expect, it } from "vitest";
import { ownerWithProject } from "../../testing/fixtures";
import { apiSuite } from "../../testing/api-suite";
import { flushDebugLog } from "../../usage/debug-log";
import { flushUsage } from "../../usage/usage-meter";
import { form } from "./files-helpers";

/** The system collections `_usage` and `_debug` (CONTRACT §10). */
const t = apiSuite();
const USAGE = "/api/collections/_usage/documents";
const DEBUG = "/api/collections/_debug/documents";

const currentHour = () => new Date().toISOString().slice(0, 13);

describe("_usage", () => {
  it("counts a project's requests and bytes per hour, with its sizes at flush", async () => {
    const as = { project: t.owner.project, token: t.owner.token };
    await flushUsage();
    const hour = currentHour();
    const before = await t.server.request(`${USAGE}/${hour}/`, as);
    const base = before.status === 200 ? before.body : { requests: 0, bytes_in: 0, bytes_out: 0 };
    const N = 7;
    for (let i = 0; i < N; i++) await t.server.request("/api/collections/u/documents/", { ...as, json: { i, text: "x".repeat(100) } });
    await flushUsage();

    const record = await t.server.request(`${USAGE}/${currentHour()}/`, as);
    expect(record.status, record.text).toBe(200);
    expect(record.body._id).toBe(currentHour());
    expect(record.body.date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00\.00Z$/);
    expect(record.body.requests - base.requests).toBeGreaterThanOrEqual(N);
    expect(record.body.bytes_in - base.bytes_in).toBeGreaterThan(N * 100);
    expect(record.body.bytes_out - base.bytes_out).toBeGreaterThan(0);
    const info = await t.server.request("/api/info/", { project: t.owner.project, session: t.owner.session });
    expect(record.body.data_size).toBe(info.body.status.data_size);
    expect(record.body.files_size).toBe(info.body.status.files_size);

    const list = await t.server.request(`${USAGE}/`, as);
    expect(list.status).toBe(200);
    expect(list.body.items.map((r: { _id: string }) => r._id)).toContain(currentHour());
    const collections = await t.server.request("/api/collections/", as);
    const usage = collections.body.items.find((c: { _id: string }) => c._id === "_usage");
    expect(usage).toMatchObject({ is_system: true, documents_count: list.body.total });
  });

  it("never counts one project's requests for another", async () => {
    const a = await ownerWithProject(t.server);
    const b = await ownerWithProject(t.server);
    await t.server.request("/api/collections/", { project: b.project, token: b.token });
    await flushUsage();
    const before = await t.server.request(`${USAGE}/${currentHour()}/`, { project: b.project, token: b.token });
    for (let i = 0; i < 5; i++) await t.server.request("/api/collections/", { project: a.project, token: a.token });
    await flushUsage();
    const after = await t.server.request(`${USAGE}/${currentHour()}/`, { project: b.project, token: b.token });
    // B's only new request is the read of `before` itself.
    expect(after.body.requests - before.body.requests).toBe(1);
    expect((await t.server.request(`${USAGE}/${currentHour()}/`, { project: a.project, token: a.token })).body.requests).toBeGreaterThanOrEqual(5);
    // A's records are not B's to read.
    const aList = await t.server.request(`${USAGE}/`, { project: b.project, token: a.token });
    expect(aList.status).toBe(401);
  });

  it("is read-only", async () => {
    const as = { project: t.owner.project, token: t.owner.token };
    expect((await t.server.request(`${USAGE}/`, { ...as, json: { requests: 1 } })).status).toBe(403);
    expect((await t.server.request(`${USAGE}/${currentHour()}/`, { ...as, method: "PUT", json: {} })).status).toBe(403);
    expect((await t.server.request(`${USAGE}/${currentHour()}/`, { ...as, method: "DELETE" })).status).toBe(403);
    expect((await t.server.request(`${USAGE}/`, { ...as, method: "PUT", json: { _id: "x" } })).status).toBe(403);
    expect((await t.server.request(`${USAGE}/`, { ...as, action: "delete", json: {} })).status).toBe(403);
    expect((await t.server.request(`${USAGE}/1999-01-01T00/`, as)).status).toBe(404);
  });
});

describe("_debug", () => {
  it("records nothing while debug is off", async () => {
    const p = await ownerWithProject(t.server);
    await t.server.request("/api/collections/d/documents/", { project: p.project, token: p.token, json: { a: 1 } });
    await flushDebugLog();
    const list = await t.server.request(`${DEBUG}/`, { project: p.project, token: p.token });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(0);
  });

  it("records calls with credentials redacted while debug is on", async () => {
    const p = await ownerWithProject(t.server);
    const as = { project: p.project, token: p.token };
    const on = await t.server.request(`/api/user/projects/${p.project}/`, { method: "PATCH", session: p.session, json: { settings: { debug: true } } });
    expect(on.status, on.text).toBe(200);

    const created = await t.server.request("/api/collections/d/documents/", { ...as, json: { greeting: "hello" } });
    expect(created.status).toBe(201);
    const read = await t.server.request(`/api/collections/d/documents/${created.body._id}/?token=${p.token}`, { project: p.project });
    expect(read.status).toBe(200);
    const upload = await t.server.request("/api/collections/_files/documents/", { ...as, body: form([["file", "file bytes", "f.txt"]]) });
    expect(upload.status, upload.text).toBe(201);
    const content = await t.server.request(`/api/collections/_files/documents/${upload.body._id}/content/`, as);
    expect(content.status).toBe(200);
    const minted = await t.server.request("/api/collections/_tokens/documents/", { project: p.project, session: p.session, json: { name: "t2", permission: { allow: { all: true } } } });
    expect(minted.status, minted.text).toBe(201);
    await t.server.request(`${DEBUG}/`, as); // reading the log is logged, without its answer
    await flushDebugLog();

    const list = await t.server.request(`${DEBUG}/?per_page=100`, as);
    expect(list.status).toBe(200);
    const records = list.body.items as Array<Record<string, any>>;
    expect(records.some((r) => r.request.url.includes("/content"))).toBe(false);
    const logRead = records.find((r) => r.request.url.includes("/_debug/"));
    expect(logRead?.response).toMatchObject({ status_code: 200, body: null });
    const post = records.find((r) => r.request.method === "POST" && r.request.url.endsWith("/collections/d/documents/"));
    expect(post).toBeDefined();
    expect(post!.request.body).toEqual({ greeting: "hello" });
    expect(post!.request.headers.authorization).toBe("[redacted]");
    expect(post!.response).toMatchObject({ status_code: 201, body: { _id: created.body._id, greeting: "hello" } });
    expect(typeof post!.response.time_took).toBe("number");
    // The answer's headers as sent: CORS and frame headers added at the edge, the JSON's length.
    expect(post!.response.headers).toMatchObject({
      "content-type": "application/json",
      "access-control-allow-origin": "*",
      "x-frame-options": "DENY",
      "content-length": String(Buffer.byteLength(JSON.stringify(post!.response.body))),
    });
    expect(post!.date_created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{2}Z$/);
    const get = records.find((r) => r.request.method === "GET" && r.request.url.includes(`/collections/d/documents/${created.body._id}/`));
    expect(get).toBeDefined();
    expect(get!.request.url).toContain("token=[redacted]");
    expect(get!.response.status_code).toBe(200);
    const multipart = records.find((r) => r.request.method === "POST" && r.request.url.includes("/_files/"));
    expect(multipart?.request.body).toBeNull();

    // The secret appears nowhere in what was stored.
    const stored = await t.db.query("SELECT record::text AS text FROM debug_records WHERE project_id = $1", [p.project]);
    expect(stored.rows.length).toBe(records.length);
    for (const row of stored.rows) {
      expect(row.text).not.toContain(p.token);
      expect(row.text).not.toContain(minted.body.token);
    }

    const one = await t.server.request(`${DEBUG}/${post!._id}/`, as);
    expect(one.status).toBe(200);
    expect(one.body._id).toBe(post!._id);
    // The reads above are logged too, by the next flush; the count is of what is stored.
    await flushDebugLog();
    const storedNow = await t.db.query("SELECT count(*)::int AS n FROM debug_records WHERE project_id = $1", [p.project]);
    expect(storedNow.rows[0].n).toBeGreaterThan(records.length);
    const collections = await t.server.request("/api/collections/", as);
    expect(collections.body.items.find((c: { _id: string }) => c._id === "_debug")).toMatchObject({ is_system: true, documents_count: storedNow.rows[0].n });

    expect((await t.server.request(`${DEBUG}/`, { ...as, json: { x: 1 } })).status).toBe(403);
    expect((await t.server.request(`${DEBUG}/${post!._id}/`, { ...as, method: "PATCH", json: {} })).status).toBe(403);
    // Read-only as CONTRACT §10 makes it: no deletes either.
    const deleted = await t.server.request(`${DEBUG}/${post!._id}/`, { ...as, method: "DELETE" });
    expect(deleted.status).toBe(403);
    expect(deleted.body.message).toBe("System collection is read-only");
    expect((await t.server.request(`${DEBUG}/`, { ...as, action: "delete", json: {} })).status).toBe(403);
    expect((await t.server.request(`${DEBUG}/${post!._id}/`, as)).status).toBe(200);

    // Processors' literal vendor keys are masked in what `_debug` keeps, as definition reads
    // mask them for members: whole definitions, a processor list, and a path into the key.
    const KEY = "AIza-debug-secret-key";
    const translate = { name: "google_translate", in: { text: { property: "title" }, to: { value: "de" }, api_key: { value: KEY } } };
    const schema = { type: "object", properties: { title: { type: "string" }, title_de: { type: "string", processors: [translate] } } };
    expect((await t.server.request("/api/collections/", { ...as, json: { _id: "tr", schema } })).status).toBe(201);
    expect((await t.server.request("/api/collections/tr/", as)).text).toContain(KEY);
    expect((await t.server.request("/api/collections/tr/schema/properties/title_de/processors/", { ...as, method: "PUT", json: [translate] })).status).toBe(200);
    expect((await t.server.request("/api/collections/tr/schema/properties/title_de/processors/0/in/api_key/", as)).body).toEqual({ value: KEY });
    expect((await t.server.request("/api/collections/tr/schema/properties/title_de/processors/0/in/api_key/value/", as)).body).toBe(KEY);
    await flushDebugLog();
    const logged = await t.db.query("SELECT record::text AS text FROM debug_records WHERE project_id = $1 AND record::text LIKE '%title_de%'", [p.project]);
    expect(logged.rows.length).toBe(5);
    for (const row of logged.rows) expect(row.text).not.toContain(KEY);
    expect(logged.rows.filter((row) => row.text.includes('"api_key": {"value": "[redacted]"}')).length).toBe(3);

    // Another project sees none of it.
    const other = await ownerWithProject(t.server);
    expect((await t.server.request(`${DEBUG}/${get!._id}/`, { project: other.project, token: other.token })).status).toBe(404);
  });
});
