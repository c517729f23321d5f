import { createHmac } from "node:crypto";
import fs from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { Webhook } from "standardwebhooks";
import { apiSuite } from "../../testing/api-suite";
import { createToken, ownerWithProject } from "../../testing/fixtures";
import { startHookReceiver, type HookReceiver } from "../../testing/hook-receiver";
import { form, PNG } from "./files-helpers";
import { HOOK_THREAD_NICE, startHookThread } from "../../hooks/start-hook-thread";
import { msUntilNextDue } from "../../hooks/hook-deliveries";
import { compileSchema } from "../../documents/document-schema";

// The receiver listens on loopback, which hooks refuse unless the operator allows it.
process.env.ARCA_HOOKS_ALLOW_PRIVATE = "true";

const t = apiSuite();
let receiver: HookReceiver;
beforeAll(async () => {
  receiver = await startHookReceiver();
});
afterAll(() => receiver.close());

const hooksPath = "/api/collections/_hooks/documents/";
const historyPath = "/api/collections/_hooks_history/documents/";
const docs = (c: string) => `/api/collections/${c}/documents/`;
const as = (extra: Record<string, unknown> = {}) => ({ project: t.owner.project, token: t.owner.token, ...extra });
let counter = 0;
const unique = (prefix: string) => `${prefix}${++counter}${Date.now().toString(36)}`;

async function createHook(body: Record<string, unknown>) {
  const response = await t.server.request(hooksPath, as({ json: body }));
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** Requests the receiver got for one hook. */
const forHook = (hookId: string) => (r: { headers: Record<string, unknown> }) => r.headers["x-hook-id"] === hookId;

async function history(hookId: string) {
  const response = await t.server.request(`${historyPath}?per_page=1000&filter=${encodeURIComponent(JSON.stringify({ hook_id: hookId }))}`, as());
  expect(response.status, response.text).toBe(200);
  return response.body.items as Record<string, any>[];
}

async function waitForHistory(hookId: string, predicate: (items: Record<string, any>[]) => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const items = await history(hookId);
    if (predicate(items)) return items;
    if (Date.now() > deadline) throw new Error(`history of ${hookId}: ${JSON.stringify(items.map((i) => [i.status, i.attempt, i.error]))}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The fake clock: makes the hook's waiting deliveries due now and wakes the workers. */
async function makeDue(hookId: string) {
  await t.db.query("UPDATE hook_deliveries SET next_attempt_at = now() WHERE project_id = $1 AND hook_id = $2 AND state = 'queued'", [t.owner.project, hookId]);
  await t.db.query("SELECT pg_notify('arca_hooks', '')");
}

/** Waits until attempt `attempt` of the hook's (only) delivery is over: its lease released. */
async function attemptFinished(hookId: string, attempt: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await t.db.query("SELECT 1 FROM hook_deliveries WHERE project_id = $1 AND hook_id = $2 AND attempt = $3 AND lease_until IS NULL", [t.owner.project, hookId, attempt]);
    if (rows.length) return;
    if (Date.now() > deadline) throw new Error(`attempt ${attempt} of ${hookId} did not finish`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("delete by criteria on _hooks and _hooks_history", () => {
  it("a filter in the URL selects (it once deleted every hook), and a filter needs read", async () => {
    for (const id of ["crit-a", "crit-b"]) await createHook({ _id: id, collection: "crit", url: `${receiver.url}/ok` });
    const byUrl = await t.server.request(`${hooksPath}?filter=${encodeURIComponent(JSON.stringify({ _id: "crit-a" }))}`, as({ action: "delete", json: {} }));
    expect(byUrl.status, byUrl.text).toBe(200);
    expect(byUrl.body).toEqual({ deleted: 1 });
    expect((await t.server.request(`${hooksPath}crit-b/`, as())).status).toBe(200);
    const deleteOnly = await createToken(t.server, t.owner.session, t.owner.project, { allow: { delete: ["_hooks", "_hooks_history"] } });
    const blind = (extra: Record<string, unknown>) => ({ project: t.owner.project, token: deleteOnly, ...extra });
    for (const path of [hooksPath, historyPath]) {
      const probe = await t.server.request(path, blind({ action: "delete", json: { filter: { _id: { $regex: "^crit" } } } }));
      expect(probe.status, `${path} ${probe.text}`).toBe(403);
    }
    expect((await t.server.request(`${hooksPath}crit-b/`, as())).status).toBe(200);
  });
});

describe("_hooks documents", () => {
  it("creates a hook with its defaults filled, reads, lists, saves, patches and deletes it", async () => {
    const hook = await createHook({ _id: "h-crud", collection: "books", url: `${receiver.url}/ok` });
    expect(hook).toEqual({
      _id: "h-crud",
      name: "",
      collection: "books",
      conditions: null,
      method: "POST",
      url: `${receiver.url}/ok`,
      headers: {},
      triggers: ["created", "updated", "deleted"],
      request_payload_wrapper: "payload",
      timeout: { read: 5, connect: 1 },
      retry: { strategy: "exponential" },
      secret: "",
      is_active: true,
    });
    expect((await t.server.request(`${hooksPath}h-crud/`, as())).body).toEqual(hook);
    const saved = await t.server.request(`${hooksPath}h-crud/`, as({ method: "PUT", json: { collection: "books", url: `${receiver.url}/ok`, method: "put" } }));
    expect(saved.status).toBe(200);
    expect(saved.body.method).toBe("PUT");
    const created = await t.server.request(`${hooksPath}h-put/`, as({ method: "PUT", json: { collection: "books", url: `${receiver.url}/ok`, is_active: false } }));
    expect(created.status).toBe(201);
    const patched = await t.server.request(`${hooksPath}h-crud/`, as({ method: "PATCH", json: { name: "Books", timeout: { read: 0.5 } } }));
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ name: "Books", method: "PUT", timeout: { read: 0.5, connect: 1 } });
    const found = await t.server.request(hooksPath, as({ action: "find", json: { filter: { name: "Books" } } }));
    expect(found.body.items.map((h: { _id: string }) => h._id)).toEqual(["h-crud"]);
    expect((await t.server.request(`${hooksPath}h-crud/`, as({ method: "DELETE" }))).status).toBe(204);
    expect((await t.server.request(`${hooksPath}h-put/`, as({ method: "DELETE" }))).status).toBe(204);
    expect((await t.server.request(`${hooksPath}h-crud/`, as())).status).toBe(404);
  });

  it("PUT without an id in the path saves the body's _id (201, then 200) or creates one; merge-patch is RFC 7396", async () => {
    const body = { _id: "h-body", collection: "books", url: `${receiver.url}/ok`, secret: "k", conditions: { type: "object" } };
    const created = await t.server.request(hooksPath, as({ method: "PUT", json: body }));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ _id: "h-body", secret: "k" });
    const replaced = await t.server.request(hooksPath, as({ method: "PUT", json: { ...body, name: "again" } }));
    expect(replaced.status).toBe(200);
    expect(replaced.body.name).toBe("again");
    const generated = await t.server.request(hooksPath, as({ method: "PUT", json: { collection: "books", url: `${receiver.url}/ok` } }));
    expect(generated.status).toBe(201);
    expect(generated.body._id).toMatch(/^[0-9a-f]{24}$/);
    // A key the merge patch sets to null is removed: it takes its default.
    const merged = await t.server.request(`${hooksPath}h-body/`, as({
      method: "PATCH", body: JSON.stringify({ conditions: null, secret: null, timeout: { read: 2 } }), headers: { "content-type": "application/merge-patch+json" },
    }));
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body).toMatchObject({ conditions: null, secret: "", timeout: { read: 2, connect: 1 }, name: "again" });
    // A PATCH may repeat the id, never change it (as a document's PATCH).
    const renamed = await t.server.request(`${hooksPath}h-body/`, as({ method: "PATCH", json: { _id: "h-other", name: "renamed" } }));
    expect(renamed.status, renamed.text).toBe(422);
    expect(renamed.body.errors).toEqual([{ property: "_id", message: "cannot be changed" }]);
    const same = await t.server.request(`${hooksPath}h-body/`, as({ method: "PATCH", json: { _id: "h-body", name: "same id" } }));
    expect(same.status, same.text).toBe(200);
    expect((await t.server.request(`${hooksPath}h-body/`, as())).body.name).toBe("same id");
    for (const id of ["h-body", generated.body._id]) expect((await t.server.request(`${hooksPath}${id}/`, as({ method: "DELETE" }))).status).toBe(204);
  });

  it.each([
    [{ url: "ftp://example.com/x" }, "url"],
    [{ url: "not a url" }, "url"],
    [{ method: "TRACE" }, "method"],
    [{ triggers: ["created", "touched"] }, "triggers"],
    [{ triggers: [] }, "triggers"],
    [{ timeout: { read: 0 } }, "timeout.read"],
    [{ timeout: { connect: 90.5 } }, "timeout.connect"],
    [{ retry: { strategy: "fibonacci" } }, "retry.strategy"],
    [{ conditions: { type: "object", properties: { a: { type: "no-such-type" } } } }, "conditions"],
    // ajv answers an $async schema with a promise: every document matched, and a failing one stopped the hook thread.
    [{ conditions: { $async: true, type: "object", properties: { n: { type: "number" } } } }, "conditions"],
    // A loop that reads no deeper overflows the stack on every document: the hook would never fire.
    [{ conditions: { definitions: { a: { $ref: "#" } }, $ref: "#/definitions/a" } }, "conditions"],
    // Headers the HTTP client refuses on every request.
    [{ headers: { Expect: "100-continue" } }, "headers.Expect"],
    [{ headers: { "Keep-Alive": "timeout=5" } }, "headers.Keep-Alive"],
    [{ headers: { Upgrade: "websocket" } }, "headers.Upgrade"],
    [{ collection: "_hooks_history" }, "collection"],
    [{ collection: "_users" }, "collection"],
    [{ collection: "_tokens" }, "collection"],
    [{ headers: { "X-Hook-Signature": "forged" } }, "headers.X-Hook-Signature"],
    [{ headers: { "Content-Type": "text/plain" } }, "headers.Content-Type"],
    [{ surprise: 1 }, "surprise"],
    // Header values go out as bytes: past ASCII they arrive as mojibake or fail every delivery.
    [{ headers: { "X-A": "€😀" } }, "headers.X-A"],
    [{ headers: { "X-A": "ü" } }, "headers.X-A"],
    // Secrets the Standard Webhooks libraries could not verify: an empty key anyone can sign
    // with, a key that is not base64, raw bytes past ASCII.
    [{ secret: "whsec_" }, "secret"],
    [{ secret: "whsec_not*base64!" }, "secret"],
    [{ secret: "pässwörd" }, "secret"],
    [{ secret: 42 }, "secret"],
  ])("refuses %j with 422 naming %s", async (change, property) => {
    const response = await t.server.request(hooksPath, as({ json: { collection: "books", url: `${receiver.url}/ok`, ...change } }));
    expect(response.status, response.text).toBe(422);
    expect(response.body.errors.map((e: { property: string }) => e.property)).toContain(property);
  });

  it("refuses conditions past the schema size bounds before compiling them (3,000 properties overflowed ajv's code generator: its stack error was the message)", async () => {
    const properties = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`p${i}`, { type: "string" }]));
    const response = await t.server.request(hooksPath, as({ json: { collection: "books", url: `${receiver.url}/ok`, conditions: { type: "object", properties } } }));
    expect(response.status, response.text).toBe(422);
    expect(response.body.errors).toEqual([
      { property: "conditions", message: "is not a valid JSON Schema: has more than 1000 objects (subschemas and their maps): describe repeated shapes once, in definitions or patternProperties" },
    ]);
  });

  it("refuses loopback, private and metadata targets unless ARCA_HOOKS_ALLOW_PRIVATE=true", async () => {
    process.env.ARCA_HOOKS_ALLOW_PRIVATE = "false";
    try {
      for (const url of [`${receiver.url}/ok`, "http://localhost:9/x", "http://10.0.0.8/x", "http://169.254.169.254/latest/meta-data", "http://[::1]:80/"]) {
        const response = await t.server.request(hooksPath, as({ json: { collection: "books", url } }));
        expect(response.status, url).toBe(422);
        expect(response.body.errors).toEqual([{ property: "url", message: expect.stringContaining("private") }]);
      }
    } finally {
      process.env.ARCA_HOOKS_ALLOW_PRIVATE = "true";
    }
  });

  it("accepts a host name that does not resolve (yet): each delivery resolves it again, and fails with an error while it does not", async () => {
    process.env.ARCA_HOOKS_ALLOW_PRIVATE = "false";
    try {
      // .invalid never resolves (RFC 2606), like any name on a machine without DNS.
      const saved = await t.server.request(hooksPath, as({ json: { _id: "h-unresolved", collection: "books", url: "https://arca-receiver.invalid/hook" } }));
      expect(saved.status, saved.text).toBe(201);
      expect(saved.body.url).toBe("https://arca-receiver.invalid/hook");
      const tested = await t.server.request(`${hooksPath}h-unresolved/`, as({ action: "test" }));
      expect(tested.status, tested.text).toBe(200);
      expect(tested.body).toMatchObject({ hook_id: "h-unresolved", trigger: "test", attempt: 1, response: null });
      expect(tested.body.status).not.toBe("success");
      expect(tested.body.error).toMatch(/host not found|ENOTFOUND|EAI_AGAIN/i);
    } finally {
      process.env.ARCA_HOOKS_ALLOW_PRIVATE = "true";
      await t.server.request(`${hooksPath}h-unresolved/`, as({ method: "DELETE" }));
    }
  });
});

describe("deliveries", () => {
  it("delivers every trigger of every write path, in commit order, with Arca's headers and the wrapper", async () => {
    const c = unique("everything");
    const hook = await createHook({ collection: c, url: `${receiver.url}/ok`, headers: { "X-Custom": "yes" } });
    const w = (path: string, options: Record<string, unknown>) => t.server.request(path, as(options));
    expect((await w(docs(c), { json: { _id: "a", n: 1 } })).status).toBe(201); // created
    await w(`${docs(c)}b/`, { method: "PUT", json: { n: 1 } }); // created
    await w(`${docs(c)}b/`, { method: "PUT", json: { n: 2 } }); // updated
    await w(`${docs(c)}a/`, { method: "PATCH", json: { n: 2 } }); // updated
    await w(`${docs(c)}a/n/`, { method: "PUT", json: 3 }); // updated
    await w(docs(c), { action: "update", json: { filter: {}, operation: { $inc: { n: 10 } } } }); // updated a, b
    await w(docs(c), { action: "upsert", json: { filter: { _id: "u" }, operation: { $set: { n: 0 } } } }); // created u
    await w(`${docs(c)}a/`, { method: "DELETE" }); // deleted a
    await w(docs(c), { action: "delete", json: { filter: { _id: { $in: ["b", "u"] } } } }); // deleted b, u
    const got = await receiver.waitFor(11, 10_000, forHook(hook._id));
    // Deliveries of different documents run concurrently; one document's arrive in commit order.
    const perDocument = (id: string) => got.filter((r) => JSON.parse(r.body).payload._id === id).map((r) => [r.headers["x-hook-trigger"], JSON.parse(r.body).payload.n]);
    expect(perDocument("a")).toEqual([["created", 1], ["updated", 2], ["updated", 3], ["updated", 13], ["deleted", 13]]);
    expect(perDocument("b")).toEqual([["created", 1], ["updated", 2], ["updated", 12], ["deleted", 12]]);
    expect(perDocument("u")).toEqual([["created", 0], ["deleted", 0]]);
    const deletedA = got.find((r) => r.headers["x-hook-trigger"] === "deleted" && JSON.parse(r.body).payload._id === "a")!;
    expect(JSON.parse(deletedA.body).payload).toEqual({ _id: "a", n: 13 }); // as it was
    for (const r of got) {
      expect(r.method).toBe("POST");
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["x-custom"]).toBe("yes");
      expect(r.headers["x-hook-operation-id"]).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.headers["x-hook-signature"]).toBeUndefined();
    }
    const items = await waitForHistory(hook._id, (items) => items.filter((i) => i.status === "success").length === 11);
    expect(new Set(items.map((i) => i.id))).toEqual(new Set(got.map((r) => r.headers["x-hook-operation-id"])));
    expect(items[0]).toMatchObject({ hook_id: hook._id, collection: c, attempt: 1, status: "success", error: null, response: { status_code: 204 } });
    expect(Object.keys(items[0]).sort()).toEqual(["attempt", "collection", "date_created", "document_id", "error", "hook_id", "id", "request", "response", "status", "trigger"]);
  });

  it("file uploads onto a document and deleting its _files record trigger deliveries", async () => {
    const c = unique("files");
    const hook = await createHook({ collection: c, url: `${receiver.url}/ok/files` });
    const uploaded = await t.server.request(docs(c), as({ body: form([["_id", '"f"'], ["photo", PNG, "dot.png"]]) }));
    expect(uploaded.status, uploaded.text).toBe(201);
    const fileId = uploaded.body.photo._id;
    expect((await t.server.request(`/api/collections/_files/documents/${fileId}/`, as({ method: "DELETE" }))).status).toBe(204);
    const got = await receiver.waitFor(2, 10_000, forHook(hook._id));
    const bodies = got.map((r) => [r.headers["x-hook-trigger"], JSON.parse(r.body).payload]);
    expect(bodies[0][0]).toBe("created");
    expect((bodies[0][1] as { photo: { _id: string; name: string } }).photo).toMatchObject({ _id: fileId, name: "dot.png" });
    expect(bodies[1]).toEqual(["updated", { _id: "f" }]);
  });

  it("a hook on _files gets its records' created and deleted events (the only system collection with events)", async () => {
    const other = await ownerWithProject(t.server);
    const mine = { project: other.project, token: other.token };
    const made = await t.server.request(hooksPath, { ...mine, json: { collection: "_files", url: `${receiver.url}/ok/files-records` } });
    expect(made.status, made.text).toBe(201);
    const uploaded = await t.server.request("/api/collections/_files/documents/", { ...mine, body: form([["file", PNG, "rec.png"]]) });
    expect(uploaded.status, uploaded.text).toBe(201);
    expect((await t.server.request(`/api/collections/_files/documents/${uploaded.body._id}/`, { ...mine, method: "DELETE" })).status).toBe(204);
    const got = await receiver.waitFor(2, 10_000, forHook(made.body._id));
    expect(got.map((r) => [r.headers["x-hook-trigger"], JSON.parse(r.body).payload._id])).toEqual([
      ["created", uploaded.body._id],
      ["deleted", uploaded.body._id],
    ]);
    expect(JSON.parse(got[0].body).payload).toEqual(uploaded.body);
  });

  it("signs the body (X-Hook-Signature and Standard Webhooks), sends a bare document with an empty wrapper, no body for GET", async () => {
    const c = unique("signed");
    const secret = "a-secret-of-the-receiver";
    const credentials = { Authorization: "Bearer receiver-token", "Api-Key": "key-1", apikey: "key-2", "X-Auth-Token": "key-3", "X-Access-Token": "key-4", "User-Agent": "mine" };
    const hook = await createHook({ collection: c, url: `${receiver.url}/ok/signed`, secret, request_payload_wrapper: "", headers: credentials });
    const getHook = await createHook({ collection: c, url: `${receiver.url}/ok/get`, method: "GET", triggers: ["created"] });
    await t.server.request(docs(c), as({ json: { _id: "s", title: "signed" } }));
    const [signed] = await receiver.waitFor(1, 10_000, forHook(hook._id));
    expect(JSON.parse(signed.body)).toEqual({ _id: "s", title: "signed" });
    // One Content-Type and one User-Agent, Arca's; the hook's own headers otherwise as set.
    expect(signed.headers["content-type"]).toBe("application/json");
    expect(signed.headers["user-agent"]).toBe("Arca-Hooks/1.0");
    expect(signed.headers["x-auth-token"]).toBe("key-3");
    const hex = createHmac("sha256", secret).update(signed.body).digest("hex");
    expect(signed.headers["x-hook-signature"]).toBe(`sha256=${hex}`);
    const verified = new Webhook(secret, { format: "raw" }).verify(signed.body, signed.headers as Record<string, string>);
    expect(verified).toEqual({ _id: "s", title: "signed" });
    expect(signed.headers["webhook-id"]).toBe(signed.headers["x-hook-operation-id"]);
    const [get] = await receiver.waitFor(1, 10_000, forHook(getHook._id));
    expect(get.method).toBe("GET");
    expect(get.body).toBe("");
    // The history keeps secrets out.
    const [record] = await waitForHistory(hook._id, (items) => items.length === 1 && items[0].status === "success");
    expect(record.request.headers.authorization ?? record.request.headers.Authorization).toBe("[redacted]");
    expect(record.request.headers["x-hook-signature"]).toBe("[redacted]");
    expect(JSON.stringify(record)).not.toContain(secret);
    expect(JSON.stringify(record)).not.toContain("receiver-token");
    for (const key of ["key-1", "key-2", "key-3", "key-4"]) expect(JSON.stringify(record)).not.toContain(key);
    // A reader who may not manage hooks sees neither the secret nor credential headers.
    const reader = await createToken(t.server, t.owner.session, t.owner.project, { allow: { read: ["_hooks"] } });
    const shown = await t.server.request(`${hooksPath}${hook._id}/`, { project: t.owner.project, token: reader });
    expect(shown.body.headers).toEqual({ Authorization: "********", "Api-Key": "********", apikey: "********", "X-Auth-Token": "********", "X-Access-Token": "********", "User-Agent": "mine" });
    expect(JSON.stringify(shown.body)).not.toContain(secret);
  });

  it("a whsec_ secret is a Standard Webhooks key", async () => {
    const c = unique("whsec");
    const secret = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;
    const hook = await createHook({ collection: c, url: `${receiver.url}/ok/whsec`, secret });
    await t.server.request(docs(c), as({ json: { _id: "w" } }));
    const [got] = await receiver.waitFor(1, 10_000, forHook(hook._id));
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toEqual({ payload: { _id: "w" } });
  });

  it("conditions decide per document; triggers filter; inactive hooks get nothing", async () => {
    const c = unique("conditions");
    const hook = await createHook({ collection: c, url: `${receiver.url}/ok/cond`, triggers: ["created"], conditions: { type: "object", properties: { n: { type: "number", minimum: 10 } }, required: ["n"] } });
    const inactive = await createHook({ collection: c, url: `${receiver.url}/ok/inactive`, is_active: false });
    await t.server.request(docs(c), as({ json: { _id: "small", n: 1 } }));
    await t.server.request(docs(c), as({ json: { _id: "big", n: 11 } }));
    await t.server.request(docs(c), as({ json: { _id: "none" } }));
    await t.server.request(`${docs(c)}big/`, as({ method: "PATCH", json: { n: 12 } }));
    await t.server.request(docs(c), as({ json: { _id: "last", n: 50 } }));
    const got = await receiver.waitFor(2, 10_000, forHook(hook._id));
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests.filter(forHook(hook._id)).map((r) => JSON.parse(r.body).payload._id)).toEqual(["big", "last"]);
    expect(got).toHaveLength(2);
    expect(receiver.requests.filter(forHook(inactive._id))).toEqual([]);
  });

  it("a change committed while a hook matched reaches it even if the hook is deactivated, deleted or narrowed before the dispatcher reads the change", async () => {
    const c = unique("held");
    const off = await createHook({ collection: c, url: `${receiver.url}/ok/off` });
    const gone = await createHook({ collection: c, url: `${receiver.url}/ok/gone` });
    const narrowed = await createHook({ collection: c, url: `${receiver.url}/ok/narrowed` });
    const untouched = await createHook({ collection: c, url: `${receiver.url}/ok/untouched` });
    // An older transaction still open anywhere holds the dispatcher before the write's event (it
    // reads in commit order): the hooks change while the event waits.
    const holder = new pg.Client({ connectionString: inject("databaseUrl") });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_current_xact_id()");
      expect((await t.server.request(docs(c), as({ json: { _id: "d1", kind: "a" } }))).status).toBe(201);
      const { rows } = await t.db.query("SELECT count(*)::int AS n FROM hook_deliveries WHERE project_id = $1 AND collection_id = $2", [t.owner.project, c]);
      expect(rows[0].n).toBe(0);
      expect((await t.server.request(`${hooksPath}${off._id}/`, as({ method: "PATCH", json: { is_active: false } }))).status).toBe(200);
      expect((await t.server.request(`${hooksPath}${gone._id}/`, as({ method: "DELETE" }))).status).toBe(204);
      const conditions = { type: "object", properties: { kind: { enum: ["b"] } }, required: ["kind"] };
      expect((await t.server.request(`${hooksPath}${narrowed._id}/`, as({ method: "PUT", json: { ...narrowed, conditions } }))).status).toBe(200);
    } finally {
      await holder.query("COMMIT");
      await holder.end();
    }
    // As they were when the change committed: the narrowed and the untouched hooks get it once,
    // the deleted one has it on record as ended, the inactive one keeps it until it is active.
    await receiver.waitFor(1, 10_000, forHook(narrowed._id));
    await receiver.waitFor(1, 10_000, forHook(untouched._id));
    expect((await waitForHistory(gone._id, (items) => items.length === 1))[0]).toMatchObject({ status: "error", error: "Hook was deleted" });
    expect(await history(off._id)).toMatchObject([{ status: "retrying", attempt: 0, response: null }]);
    expect((await t.server.request(`${hooksPath}${off._id}/`, as({ method: "PATCH", json: { is_active: true } }))).status).toBe(200);
    await receiver.waitFor(1, 10_000, forHook(off._id));
    await new Promise((r) => setTimeout(r, 300));
    for (const hook of [off, narrowed, untouched]) expect(receiver.requests.filter(forHook(hook._id)).map((r) => JSON.parse(r.body).payload._id)).toEqual(["d1"]);
    expect(receiver.requests.filter(forHook(gone._id))).toEqual([]);
  });

  it("a change committed while a hook was inactive, narrower or not yet made never reaches it, even when the dispatcher reads it after the hook changed", async () => {
    const c = unique("before");
    const waking = await createHook({ collection: c, url: `${receiver.url}/ok/waking`, is_active: false });
    const widened = await createHook({ collection: c, url: `${receiver.url}/ok/widened`, triggers: ["updated"] });
    const holder = new pg.Client({ connectionString: inject("databaseUrl") });
    await holder.connect();
    let late = "";
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_current_xact_id()");
      expect((await t.server.request(docs(c), as({ json: { _id: "early" } }))).status).toBe(201);
      // The dispatcher cannot have read it: now the hooks change, and one is made.
      expect((await t.server.request(`${hooksPath}${waking._id}/`, as({ method: "PATCH", json: { is_active: true } }))).status).toBe(200);
      expect((await t.server.request(`${hooksPath}${widened._id}/`, as({ method: "PATCH", json: { triggers: ["created", "updated"] } }))).status).toBe(200);
      late = (await createHook({ collection: c, url: `${receiver.url}/ok/late` }))._id;
    } finally {
      await holder.query("COMMIT");
      await holder.end();
    }
    // Changes after the hooks changed reach them all, and only those.
    expect((await t.server.request(docs(c), as({ json: { _id: "after" } }))).status).toBe(201);
    for (const id of [waking._id, widened._id, late]) await receiver.waitFor(1, 10_000, forHook(id));
    await new Promise((r) => setTimeout(r, 300));
    for (const id of [waking._id, widened._id, late]) {
      expect(receiver.requests.filter(forHook(id)).map((r) => JSON.parse(r.body).payload._id), id).toEqual(["after"]);
      expect((await history(id)).map((item) => item.document_id), id).toEqual(["after"]);
    }
  });

  it("retries with exponential back-off (2, 4 s ...), or constant 2 s, and honours Retry-After", async () => {
    const c = unique("retry");
    const exponential = await createHook({ collection: c, url: `${receiver.url}/fail/exp` });
    const constant = await createHook({ collection: c, url: `${receiver.url}/fail/const`, retry: { strategy: "constant" } });
    const busy = await createHook({ collection: c, url: `${receiver.url}/busy` });
    await t.server.request(docs(c), as({ json: { _id: "r" } }));
    const spacing = async (hookId: string) => {
      const { rows } = await t.db.query(
        "SELECT attempt, extract(epoch FROM next_attempt_at - now()) AS wait FROM hook_deliveries WHERE project_id = $1 AND hook_id = $2",
        [t.owner.project, hookId],
      );
      return { attempt: rows[0].attempt, wait: Number(rows[0].wait) };
    };
    const after = async (hookId: string, attempt: number) => {
      await attemptFinished(hookId, attempt);
      return spacing(hookId);
    };
    const e1 = await after(exponential._id, 1);
    expect(e1.wait).toBeGreaterThan(1);
    expect(e1.wait).toBeLessThanOrEqual(2);
    await makeDue(exponential._id);
    const e2 = await after(exponential._id, 2);
    expect(e2.wait).toBeGreaterThan(3);
    expect(e2.wait).toBeLessThanOrEqual(4);
    await makeDue(exponential._id);
    const e3 = await after(exponential._id, 3);
    expect(e3.wait).toBeGreaterThan(7);
    expect(e3.wait).toBeLessThanOrEqual(8);

    const c1 = await after(constant._id, 1);
    await makeDue(constant._id);
    const c2 = await after(constant._id, 2);
    for (const { wait } of [c1, c2]) {
      expect(wait).toBeGreaterThan(1);
      expect(wait).toBeLessThanOrEqual(2);
    }

    const b1 = await after(busy._id, 1);
    expect(b1.wait).toBeGreaterThan(6);
    expect(b1.wait).toBeLessThanOrEqual(7);
  });

  it("after 10 failed attempts the delivery is an error and the project is notified", async () => {
    const c = unique("exhausted");
    const hook = await createHook({ name: "Always failing", collection: c, url: `${receiver.url}/fail/exhausted`, retry: { strategy: "constant" } });
    await t.server.request(docs(c), as({ json: { _id: "x" } }));
    for (let attempt = 1; attempt < 10; attempt++) {
      await attemptFinished(hook._id, attempt);
      await makeDue(hook._id);
    }
    const [record] = await waitForHistory(hook._id, (items) => items[0]?.status === "error");
    expect(record).toMatchObject({ attempt: 10, status: "error", error: "Receiver answered 500", response: { status_code: 500, body: "receiver failed" } });
    expect(receiver.requests.filter(forHook(hook._id))).toHaveLength(10);
    const notifications = await t.server.request("/api/collections/_notification/documents/", as());
    expect(notifications.body.items.some((n: { subject: string }) => n.subject.includes("Always failing"))).toBe(true);
  });

  it("follows up to 5 redirects with method and body kept; a 6th is a failure", async () => {
    const c = unique("redirect");
    const five = await createHook({ collection: c, url: `${receiver.url}/redirect/5`, method: "PUT" });
    const six = await createHook({ collection: c, url: `${receiver.url}/redirect/6` });
    await t.server.request(docs(c), as({ json: { _id: "r", v: 1 } }));
    const hops = await receiver.waitFor(6, 10_000, forHook(five._id));
    expect(hops.map((r) => r.path)).toEqual(["/redirect/5", "/redirect/4", "/redirect/3", "/redirect/2", "/redirect/1", "/ok"]);
    expect(hops.every((r) => r.method === "PUT" && JSON.parse(r.body).payload._id === "r")).toBe(true);
    const [ok] = await waitForHistory(five._id, (items) => items[0]?.status === "success");
    expect(ok.request.url).toBe(`${receiver.url}/ok`);
    const [failed] = await waitForHistory(six._id, (items) => items[0]?.response !== null && items[0]?.response !== undefined);
    expect(failed).toMatchObject({ status: "retrying", response: { status_code: 307 } });
  });

  it("a redirect to another origin leaves the hook's credential headers behind; its signatures go on", async () => {
    const other = await startHookReceiver();
    try {
      const c = unique("elsewhere");
      const hook = await createHook({ collection: c, url: `${receiver.url}/to/${encodeURIComponent(`${other.url}/ok`)}`, headers: { Authorization: "Bearer for-the-first", "X-Api-Key": "first-only", "X-Plain": "kept" } });
      await t.server.request(docs(c), as({ json: { _id: "e" } }));
      const [first] = await receiver.waitFor(1, 10_000, forHook(hook._id));
      const [second] = await other.waitFor(1, 10_000, forHook(hook._id));
      expect(first.headers.authorization).toBe("Bearer for-the-first");
      expect(second.headers.authorization).toBeUndefined();
      expect(second.headers["x-api-key"]).toBeUndefined();
      expect(second.headers["x-plain"]).toBe("kept");
      expect(second.headers["webhook-signature"]).toBe(first.headers["webhook-signature"]);
    } finally {
      await other.close();
    }
  });

  it("a receiver that never answers costs its hook timeout.read, and other hooks are not delayed", async () => {
    const c = unique("timeout");
    const hanging = await createHook({ collection: c, url: `${receiver.url}/hang`, timeout: { read: 0.3, connect: 1 } });
    const fine = await createHook({ collection: c, url: `${receiver.url}/ok/fine` });
    for (let i = 0; i < 20; i++) await t.server.request(docs(c), as({ json: { _id: `d${i}` } }));
    await receiver.waitFor(20, 10_000, forHook(fine._id));
    const items = await waitForHistory(hanging._id, (items) => items.length === 20 && items.every((i) => i.attempt >= 1 && i.error));
    for (const item of items) {
      expect(item.error).toBe("Read timeout (0.3 s)");
      expect(item.response).toBeNull();
    }
  });

  it("a burst of 1,000 queued deliveries has the queue and the hooks analyzed (its claims stay on the due index)", async () => {
    const c = unique("burst");
    const hook = await createHook({ collection: c, url: `${receiver.url}/ok/burst` });
    // Only the dispatcher's ANALYZE may count: autovacuum's would be last_autoanalyze, and it is off.
    await t.db.query("ALTER TABLE hook_deliveries SET (autovacuum_enabled = false)");
    await t.db.query("ALTER TABLE hooks SET (autovacuum_enabled = false)");
    try {
      const { rows: [{ now }] } = await t.db.query("SELECT now()");
      await t.db.query(
        `INSERT INTO document_events (project_id, collection_id, document_id, kind, after)
         SELECT $1, $2, 'd' || g, 'created', jsonb_build_object('_id', 'd' || g) FROM generate_series(1, 1000) g`,
        [t.owner.project, c],
      );
      await t.db.query("SELECT pg_notify('arca_events', '')");
      await receiver.waitFor(1000, 30_000, forHook(hook._id));
      const deadline = Date.now() + 10_000;
      for (;;) {
        const { rows } = await t.db.query(
          "SELECT relname, last_analyze FROM pg_stat_user_tables WHERE relname IN ('hook_deliveries', 'hooks') AND last_analyze >= $1",
          [now],
        );
        if (rows.length === 2) break;
        if (Date.now() > deadline) throw new Error(`not both analyzed since ${now.toISOString()}: ${JSON.stringify(rows)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await t.db.query("ALTER TABLE hook_deliveries RESET (autovacuum_enabled)");
      await t.db.query("ALTER TABLE hooks RESET (autovacuum_enabled)");
    }
  }, 60_000);

  it("an inactive hook's queued delivery leaves the workers idle, and goes out as soon as the hook is active again", async () => {
    const c = unique("reactivate");
    const hook = await createHook({ collection: c, url: `${receiver.url}/ok/reactivate` });
    const path = `${hooksPath}${hook._id}/`;
    const queue = async (documentId: string) => {
      await t.db.query(
        `INSERT INTO hook_deliveries (id, project_id, hook_id, trigger, collection_id, document_id, payload)
         VALUES ($1, $2, $3, 'created', $4, $5, $6)`,
        [`${hook._id}-${documentId}`, t.owner.project, hook._id, c, documentId, JSON.stringify({ _id: documentId })],
      );
      await t.db.query("SELECT pg_notify('arca_hooks', '')");
    };
    expect((await t.server.request(path, as({ method: "PATCH", json: { is_active: false } }))).status).toBe(200);
    await queue("p");
    // Listed while queued, before any attempt, in the shape the collection's schema publishes.
    const schema = compileSchema((await t.server.request("/api/collections/_hooks_history/", as())).body.schema);
    const queued = (await t.server.request(`${historyPath}${hook._id}-p/`, as())).body;
    expect(queued).toMatchObject({ status: "retrying", attempt: 0, request: null, response: null });
    expect(schema.validate(queued)).toEqual([]);
    // Due but not claimable: the workers' timer must not count it (it did, and they claimed
    // nothing in a loop for as long as the hook stayed inactive).
    const wait = await msUntilNextDue();
    expect(wait === undefined || wait > 0).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests.filter(forHook(hook._id))).toEqual([]);
    // Made active by PATCH, then by PUT: delivered well within the workers' 5 s idle recheck.
    expect((await t.server.request(path, as({ method: "PATCH", json: { is_active: true } }))).status).toBe(200);
    await receiver.waitFor(1, 2_000, forHook(hook._id));
    expect((await t.server.request(path, as({ method: "PATCH", json: { is_active: false } }))).status).toBe(200);
    await queue("q");
    expect((await t.server.request(path, as({ method: "PUT", json: { collection: c, url: `${receiver.url}/ok/reactivate` } }))).status).toBe(200);
    const delivered = await receiver.waitFor(2, 2_000, forHook(hook._id));
    expect(delivered.map((r) => JSON.parse(r.body).payload._id)).toEqual(["p", "q"]);
    const done = (await waitForHistory(hook._id, (items) => items.every((i) => i.status === "success")))[0];
    expect(done).toMatchObject({ attempt: 1, request: { method: "POST" }, response: { status_code: expect.any(Number) } });
    expect(schema.validate(done)).toEqual([]);
  });

  it("keeps per-document order behind a failing delivery", async () => {
    const c = unique("order");
    const hook = await createHook({ collection: c, url: `${receiver.url}/flaky/1`, retry: { strategy: "constant" } });
    await t.server.request(docs(c), as({ json: { _id: "o", v: 0 } }));
    for (let v = 1; v <= 4; v++) await t.server.request(`${docs(c)}o/`, as({ method: "PATCH", json: { v } }));
    await waitForHistory(hook._id, (items) => items.length === 5 && items[0].attempt === 1 && items[0].status === "retrying");
    await new Promise((r) => setTimeout(r, 200));
    // The later events wait behind the first one's retry.
    expect(receiver.requests.filter(forHook(hook._id))).toHaveLength(1);
    for (let round = 0; round < 5; round++) {
      await makeDue(hook._id);
      await new Promise((r) => setTimeout(r, 150));
    }
    await waitForHistory(hook._id, (items) => items.every((i) => i.status === "success"), 15_000);
    const versions = receiver.requests.filter(forHook(hook._id)).map((r) => JSON.parse(r.body).payload.v);
    // Each delivery fails once then succeeds: 0,0,1,1,... never out of order.
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect([...new Set(versions)]).toEqual([0, 1, 2, 3, 4]);
  });

  it("deleting a hook drops its queued deliveries", async () => {
    const c = unique("dropped");
    const hook = await createHook({ collection: c, url: `${receiver.url}/fail/dropped` });
    await t.server.request(docs(c), as({ json: { _id: "d1" } }));
    await waitForHistory(hook._id, (items) => items[0]?.attempt === 1 && items[0].status === "retrying" && items[0].response !== null);
    await t.server.request(`${hooksPath}${hook._id}/`, as({ method: "DELETE" }));
    const { rows } = await t.db.query("SELECT state, error FROM hook_deliveries WHERE project_id = $1 AND hook_id = $2", [t.owner.project, hook._id]);
    expect(rows).toEqual([{ state: "error", error: "Hook was deleted" }]);
    await makeDue(hook._id);
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.requests.filter(forHook(hook._id))).toHaveLength(1);
  });

  it("a hook deleted right after a write it matches leaves no delivery queued forever", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const c = unique("gone");
      const hook = await createHook({ collection: c, url: `${receiver.url}/fail/gone` });
      ids.push(hook._id);
      await t.server.request(docs(c), as({ json: { _id: "d1" } }));
      await t.server.request(`${hooksPath}${hook._id}/`, as({ method: "DELETE" }));
    }
    // Once the dispatcher has read those events, none of their deliveries waits for a hook that is gone.
    await new Promise((r) => setTimeout(r, 1500));
    const { rows } = await t.db.query("SELECT hook_id, state, error FROM hook_deliveries WHERE project_id = $1 AND hook_id = ANY($2) AND state NOT IN ('error', 'success')", [t.owner.project, ids]);
    expect(rows).toEqual([]);
  });

  it("deleting a hook while an attempt is in flight ends that delivery too, once the attempt is over", async () => {
    const c = unique("inflight");
    const hook = await createHook({ collection: c, url: `${receiver.url}/hang/inflight`, timeout: { read: 1 } });
    await t.server.request(docs(c), as({ json: { _id: "d1" } }));
    await receiver.waitFor(1, 10_000, forHook(hook._id));
    await t.server.request(`${hooksPath}${hook._id}/`, as({ method: "DELETE" }));
    await attemptFinished(hook._id, 1);
    const { rows } = await t.db.query("SELECT state, error, response IS NULL AS unanswered FROM hook_deliveries WHERE project_id = $1 AND hook_id = $2", [t.owner.project, hook._id]);
    expect(rows).toEqual([{ state: "error", error: "Hook was deleted", unanswered: true }]);
    const [record] = await history(hook._id);
    expect(record).toMatchObject({ status: "error", error: "Hook was deleted" });
  });

  it("X-Action: test sends a sample now; X-Action: retry delivers a history record's event again", async () => {
    const c = unique("actions");
    const hook = await createHook({ collection: c, url: `${receiver.url}/ok/actions` });
    const tested = await t.server.request(`${hooksPath}${hook._id}/`, as({ action: "test" }));
    expect(tested.status, tested.text).toBe(200);
    expect(tested.body).toMatchObject({ hook_id: hook._id, trigger: "test", status: "success", attempt: 1, response: { status_code: 204 } });
    const [sample] = await receiver.waitFor(1, 5000, forHook(hook._id));
    expect(sample.headers["x-hook-trigger"]).toBe("test");

    await t.server.request(docs(c), as({ json: { _id: "again", v: 1 } }));
    const [record] = await waitForHistory(hook._id, (items) => items.some((i) => i.trigger === "created" && i.status === "success")).then((items) =>
      items.filter((i) => i.trigger === "created"),
    );
    const retried = await t.server.request(`${historyPath}${record.id}/`, as({ action: "retry" }));
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body).toMatchObject({ id: record.id, status: "success", attempt: 1 });
    const again = receiver.requests.filter((r) => r.headers["x-hook-operation-id"] === record.id);
    expect(again).toHaveLength(2);
    expect(JSON.parse(again[1].body).payload).toEqual({ _id: "again", v: 1 });
    expect((await t.server.request(`${historyPath}no-such-id/`, as({ action: "retry" }))).status).toBe(404);
    // A body, though none is needed, is checked as every body is; nothing is sent for a bad one.
    const { rawRequest } = await import("../../testing/raw-request");
    const sent = receiver.requests.filter(forHook(hook._id)).length;
    for (const [path, action] of [[`${hooksPath}${hook._id}/`, "test"], [`${historyPath}${record.id}/`, "retry"]]) {
      const headers = { authorization: `Token ${t.owner.token}`, "x-project": t.owner.project, "x-action": action };
      expect((await rawRequest(t.server.port, path, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: "{oops" })).status, action).toBe(400);
      expect((await rawRequest(t.server.port, path, { method: "POST", headers: { ...headers, "content-type": "image/png" }, body: "x" })).status, action).toBe(415);
    }
    expect(receiver.requests.filter(forHook(hook._id))).toHaveLength(sent);
    // A record whose hook is gone is still read, but there is nothing to send it with: 409.
    expect((await t.server.request(`${hooksPath}${hook._id}/`, as({ method: "DELETE" }))).status).toBe(204);
    expect((await t.server.request(`${historyPath}${record.id}/`, as())).status).toBe(200);
    expect(await t.server.request(`${historyPath}${record.id}/`, as({ action: "retry" }))).toMatchObject({ status: 409, body: { message: "The hook of this delivery was deleted." } });
  });

  it("_hooks_history lists with filter, sort, paging and fields; records can be deleted; it is read-only otherwise", async () => {
    const c = unique("listing");
    const hook = await createHook({ collection: c, url: `${receiver.url}/ok/listing` });
    for (let i = 0; i < 5; i++) await t.server.request(docs(c), as({ json: { _id: `l${i}` } }));
    await waitForHistory(hook._id, (items) => items.length === 5 && items.every((i) => i.status === "success"));
    const filter = encodeURIComponent(JSON.stringify({ hook_id: hook._id, status: "success" }));
    const page = await t.server.request(`${historyPath}?filter=${filter}&per_page=2&page=2&sort=-document_id&fields=document_id,status`, as());
    expect(page.status, page.text).toBe(200);
    expect(page.body).toMatchObject({ total: 5, page: 2, pages: 3, per_page: 2 });
    expect(page.body.items).toEqual([
      { id: expect.any(String), document_id: "l2", status: "success" },
      { id: expect.any(String), document_id: "l1", status: "success" },
    ]);
    const one = page.body.items[0].id;
    expect((await t.server.request(`${historyPath}${one}/`, as())).body).toMatchObject({ id: one, document_id: "l2" });
    // One record read with fields keeps its identity key as the list does; excluded, it goes.
    expect((await t.server.request(`${historyPath}${one}/?fields=status`, as())).body).toEqual({ id: one, status: "success" });
    expect((await t.server.request(`${historyPath}${one}/?fields=status&fields_exclude=id`, as())).body).toEqual({ status: "success" });
    const withoutId = await t.server.request(`${historyPath}?filter=${filter}&per_page=1&fields=status&fields_exclude=id`, as());
    expect(withoutId.body.items).toEqual([{ status: "success" }]);
    for (const [path, method] of [[`${historyPath}${one}/`, "PUT"], [`${historyPath}${one}/`, "PATCH"], [`${historyPath}${one}/`, "POST"], [historyPath, "POST"], [historyPath, "PUT"]]) {
      const refused = await t.server.request(path, as({ method, json: { hook_id: "x" } }));
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body).toEqual({ message: "System collection is read-only" });
    }
    expect((await t.server.request(`${historyPath}${one}/`, as({ method: "DELETE" }))).status).toBe(204);
    expect((await t.server.request(`${historyPath}${one}/`, as())).status).toBe(404);
    const deleted = await t.server.request(historyPath, as({ action: "delete", json: { filter: { hook_id: hook._id, document_id: { $in: ["l0", "l1"] } } } }));
    expect(deleted.body).toEqual({ deleted: 2 });
    expect(await history(hook._id)).toHaveLength(2);
    // The seed's delete body names records by `_id`: here that is `id`, in filters as in sort.
    const left = (await history(hook._id)).map((r) => r.id as string);
    const found = await t.server.request(historyPath, as({ action: "find", json: { filter: { _id: left[0] } } }));
    expect(found.body.items.map((r: { id: string }) => r.id)).toEqual([left[0]]);
    const bySeedShape = await t.server.request(historyPath, as({ action: "delete", json: { payload: { filter: { _id: { $in: left } } } } }));
    expect(bySeedShape.body).toEqual({ deleted: 2 });
    expect(await history(hook._id)).toHaveLength(0);
  });

  it("purges history after settings.hooks_history_ttl", async () => {
    const { pruneOutbox } = await import("../../outbox/outbox-maintenance");
    const c = unique("purge");
    const hook = await createHook({ collection: c, url: `${receiver.url}/ok/purge` });
    await t.server.request(docs(c), as({ json: { _id: "p" } }));
    await waitForHistory(hook._id, (items) => items[0]?.status === "success");
    await t.db.query("UPDATE hook_deliveries SET date_created = now() - interval '2 hours' WHERE hook_id = $1 AND project_id = $2", [hook._id, t.owner.project]);
    const patched = await t.server.request(`/api/user/projects/${t.owner.project}/`, { session: t.owner.session, method: "PATCH", json: { settings: { hooks_history_ttl: "1h" } } });
    expect(patched.status, patched.text).toBe(200);
    await pruneOutbox();
    expect(await history(hook._id)).toEqual([]);
  });
});

describe("isolation", () => {
  it("another project neither sees this project's hooks and history nor gets its events", async () => {
    const other = await ownerWithProject(t.server);
    const c = unique("isolated");
    const mine = await createHook({ collection: c, url: `${receiver.url}/ok/mine` });
    const theirs = await t.server.request(hooksPath, { project: other.project, token: other.token, json: { collection: c, url: `${receiver.url}/ok/theirs` } });
    expect(theirs.status).toBe(201);
    await t.server.request(docs(c), as({ json: { _id: "only-mine" } }));
    await receiver.waitFor(1, 10_000, forHook(mine._id));
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests.filter(forHook(theirs.body._id))).toEqual([]);
    const seen = await t.server.request(`${hooksPath}${mine._id}/`, { project: other.project, token: other.token });
    expect(seen.status).toBe(404);
    const list = await t.server.request(hooksPath, { project: other.project, token: other.token });
    expect(list.body.items.map((h: { _id: string }) => h._id)).toEqual([theirs.body._id]);
    const [record] = await history(mine._id);
    expect((await t.server.request(`${historyPath}${record.id}/`, { project: other.project, token: other.token })).status).toBe(404);
    expect((await t.server.request(`${historyPath}${record.id}/`, { project: other.project, token: other.token, action: "retry" })).status).toBe(404);
  });

  it("a token without rights on _hooks cannot manage hooks", async () => {
    const reader = await t.server.request("/api/collections/_tokens/documents/", as({ json: { permission: { allow: { read: ["books"], write: ["books"] } } } }));
    const token = reader.body.token;
    const response = await t.server.request(hooksPath, { project: t.owner.project, token, json: { collection: "books", url: `${receiver.url}/ok` } });
    expect(response.status).toBe(403);
  });

  it("a token's per-document grant on one hook reaches that hook only", async () => {
    await createHook({ _id: "granted", collection: "books", url: `${receiver.url}/ok`, secret: "granted-secret", headers: { Authorization: "Bearer x" } });
    await createHook({ _id: "other-hook", collection: "books", url: `${receiver.url}/ok` });
    const grant = [{ what: "document", where: "_hooks", what_id: "granted" }];
    const minted = await t.server.request("/api/collections/_tokens/documents/", as({ json: { permission: { allow: { read: grant, update: grant, delete: grant } } } }));
    const asGrant = (extra: Record<string, unknown>) => ({ project: t.owner.project, token: minted.body.token, ...extra });
    const patched = await t.server.request(`${hooksPath}granted/`, asGrant({ method: "PATCH", json: { name: "Mine" } }));
    expect(patched.status, patched.text).toBe(200);
    // Its answer is masked as its read is: the grant manages no hooks.
    expect(patched.body.secret).toBe("********");
    expect(patched.body.headers.Authorization).toBe("********");
    expect(patched.text).not.toContain("granted-secret");
    expect((await t.server.request(`${hooksPath}other-hook/`, asGrant({ method: "PATCH", json: { name: "No" } }))).status).toBe(403);
    expect((await t.server.request(hooksPath, asGrant({ json: { collection: "books", url: `${receiver.url}/ok` } }))).status).toBe(403);
    // Pointing it elsewhere would deliver documents of a collection the token cannot read.
    const redirect = await t.server.request(`${hooksPath}granted/`, asGrant({ method: "PATCH", json: { url: `${receiver.url}/mine` } }));
    expect(redirect.status, redirect.text).toBe(403);
    expect(redirect.body.message).toBe("Not allowed to read in collection books: a hook would deliver its documents");
    expect((await t.server.request(`${hooksPath}granted/`, asGrant({ method: "PATCH", headers: { "content-type": "application/merge-patch+json" }, body: JSON.stringify({ collection: "other" }) }))).status).toBe(403);
    expect((await t.server.request(`${hooksPath}granted/`, asGrant({ method: "DELETE" }))).status).toBe(204);
    expect((await t.server.request(`${hooksPath}other-hook/`, as({ method: "DELETE" }))).status).toBe(204);
  });

  it("a secret is shown only to those who manage hooks and may read the hook's collection (it signs that collection's documents)", async () => {
    const c = unique("signed");
    await createHook({ _id: unique("signed"), collection: c, url: `${receiver.url}/ok`, secret: "only-for-readers", headers: { Authorization: "Bearer y" } });
    const manager = await t.server.request("/api/collections/_tokens/documents/", as({ json: { permission: { allow: { read: ["_hooks", "elsewhere"], write: ["_hooks"], update: ["_hooks"] } } } }));
    const asManager = { project: t.owner.project, token: manager.body.token };
    const listed = await t.server.request(`${hooksPath}?per_page=1000`, asManager);
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain("only-for-readers");
    expect(listed.text).not.toContain("Bearer y");
    const reader = await t.server.request("/api/collections/_tokens/documents/", as({ json: { permission: { allow: { read: ["_hooks", c], write: ["_hooks"], update: ["_hooks"] } } } }));
    expect((await t.server.request(`${hooksPath}?per_page=1000`, { project: t.owner.project, token: reader.body.token })).text).toContain("only-for-readers");
  });

  it("a token reading _hooks_history sees only deliveries of collections it may read (a record carries the document)", async () => {
    const c = unique("hidden");
    const hook = await createHook({ collection: c, url: `${receiver.url}/ok/hidden` });
    await t.server.request(docs(c), as({ json: { _id: "h1", secret: "carried" } }));
    await waitForHistory(hook._id, (items) => items[0]?.status === "success");
    const [record] = await history(hook._id);
    const minted = await t.server.request("/api/collections/_tokens/documents/", as({ json: { permission: { allow: { read: ["_hooks_history"] } } } }));
    const asHistory = { project: t.owner.project, token: minted.body.token };
    const listed = await t.server.request(`${historyPath}?per_page=1000`, asHistory);
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain("carried");
    expect((await t.server.request(`${historyPath}${record.id}/`, asHistory)).status).toBe(404);
    const granted = await t.server.request("/api/collections/_tokens/documents/", as({ json: { permission: { allow: { read: ["_hooks_history", c] } } } }));
    expect((await t.server.request(`${historyPath}${record.id}/`, { project: t.owner.project, token: granted.body.token })).body.document_id).toBe("h1");
  });

  it("a record the token may not see is as absent to a retry and a delete too, and a delete by criteria takes only what it sees", async () => {
    const c = unique("unseen");
    const hook = await createHook({ collection: c, url: `${receiver.url}/ok/unseen` });
    await t.server.request(docs(c), as({ json: { _id: "u1", secret: "carried" } }));
    await t.server.request(docs(c), as({ json: { _id: "u2", secret: "carried" } }));
    await waitForHistory(hook._id, (items) => items.length === 2 && items.every((i) => i.status === "success"));
    const [first] = await history(hook._id);
    const minted = await t.server.request("/api/collections/_tokens/documents/", as({ json: { permission: { allow: { read: ["_hooks_history"], update: ["_hooks_history"], delete: ["_hooks_history"] } } } }));
    const outsider = (extra: Record<string, unknown> = {}) => ({ project: t.owner.project, token: minted.body.token, ...extra });
    const retried = await t.server.request(`${historyPath}${first.id}/`, outsider({ action: "retry" }));
    expect(retried.status).toBe(404);
    expect(retried.text).not.toContain("carried");
    expect((await t.server.request(`${historyPath}${first.id}/`, outsider({ method: "DELETE" }))).status).toBe(404);
    expect((await t.server.request(historyPath, outsider({ action: "delete", json: {} }))).body).toEqual({ deleted: 0 });
    expect(await history(hook._id)).toHaveLength(2);
    expect(receiver.requests.filter(forHook(hook._id))).toHaveLength(2);
  });

  it("a delivery never goes to a hook that now watches another collection: pointed elsewhere, or deleted and made again", async () => {
    const [secret, open] = [unique("watched"), unique("other")];
    const hook = await createHook({ _id: unique("moved"), collection: secret, url: `${receiver.url}/fail/moved`, retry: { strategy: "constant" } });
    await t.server.request(docs(secret), as({ json: { _id: "s1", ssn: "123" } }));
    await waitForHistory(hook._id, (items) => items[0]?.status === "retrying");
    // Pointed at another collection (and URL): what it had queued for the old one ends.
    const moved = await t.server.request(`${hooksPath}${hook._id}/`, as({ method: "PATCH", json: { collection: open, url: `${receiver.url}/ok/moved` } }));
    expect(moved.status, moved.text).toBe(200);
    const [ended] = await history(hook._id);
    expect(ended).toMatchObject({ status: "error", error: "The hook now watches another collection" });
    await makeDue(hook._id);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests.filter((r) => r.path.startsWith("/ok/moved"))).toHaveLength(0);
    // Deleted, then made again with the same id for another collection: its old records are not retried with it.
    const again = await createHook({ _id: unique("remade"), collection: secret, url: `${receiver.url}/ok/remade` });
    await t.server.request(docs(secret), as({ json: { _id: "s2", ssn: "456" } }));
    const [record] = await waitForHistory(again._id, (items) => items[0]?.status === "success");
    expect((await t.server.request(`${hooksPath}${again._id}/`, as({ method: "DELETE" }))).status).toBe(204);
    await createHook({ _id: again._id, collection: open, url: `${receiver.url}/ok/elsewhere` });
    expect(await t.server.request(`${historyPath}${record.id}/`, as({ action: "retry" }))).toMatchObject({ status: 409, body: { message: "The hook of this delivery now watches another collection." } });
    expect(receiver.requests.filter((r) => r.path.startsWith("/ok/elsewhere"))).toHaveLength(0);
  });

  it("a token makes hooks only on collections it may read (a hook would deliver their documents)", async () => {
    const minted = await t.server.request("/api/collections/_tokens/documents/", as({ json: { permission: { allow: { read: ["open"], write: ["_hooks"], update: ["_hooks"] } } } }));
    const asHookMaker = (extra: Record<string, unknown>) => ({ project: t.owner.project, token: minted.body.token, ...extra });
    for (const collection of ["secret", "_files"]) {
      const refused = await t.server.request(hooksPath, asHookMaker({ json: { collection, url: `${receiver.url}/ok` } }));
      expect(refused.status, refused.text).toBe(403);
    }
    const made = await t.server.request(hooksPath, asHookMaker({ json: { _id: "open-hook", collection: "open", url: `${receiver.url}/ok` } }));
    expect(made.status, made.text).toBe(201);
    expect((await t.server.request(`${hooksPath}open-hook/`, asHookMaker({ method: "PATCH", json: { collection: "secret" } }))).status).toBe(403);
    expect((await t.server.request(`${hooksPath}open-hook/`, asHookMaker({ method: "PUT", json: { collection: "secret", url: `${receiver.url}/ok` } }))).status).toBe(403);
    expect((await t.server.request(`${hooksPath}open-hook/`, as({ method: "GET" }))).body.collection).toBe("open");
    expect((await t.server.request(`${hooksPath}open-hook/`, as({ method: "DELETE" }))).status).toBe(204);
  });

  it("a token moves a hook only off a collection it may read (the moved hook would show it the secret and credential headers)", async () => {
    await createHook({ _id: "walled", collection: "walled-in", url: `${receiver.url}/ok`, secret: "walled-secret", headers: { Authorization: "Bearer walled" } });
    const minted = await t.server.request("/api/collections/_tokens/documents/", as({ json: { permission: { allow: { read: ["_hooks", "open"], write: ["_hooks"], update: ["_hooks"] } } } }));
    const asMover = (extra: Record<string, unknown>) => ({ project: t.owner.project, token: minted.body.token, ...extra });
    const moves = [
      asMover({ method: "PATCH", json: { collection: "open" } }),
      asMover({ method: "PATCH", headers: { "content-type": "application/merge-patch+json" }, body: JSON.stringify({ collection: "open" }) }),
      asMover({ method: "PUT", json: { collection: "open", url: `${receiver.url}/ok` } }),
    ];
    for (const move of moves) {
      const refused = await t.server.request(`${hooksPath}walled/`, move);
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body.message).toBe("Not allowed to read in collection walled-in: the hook delivers its documents, signed with its secret");
      expect(refused.text).not.toContain("walled-secret");
    }
    const kept = await t.server.request(`${hooksPath}walled/`, as({}));
    expect(kept.body).toMatchObject({ collection: "walled-in", secret: "walled-secret", headers: { Authorization: "Bearer walled" } });
    expect((await t.server.request(`${hooksPath}walled/`, as({ method: "DELETE" }))).status).toBe(204);
  });
});

describe("the hook thread", () => {
  /** A thread's nice value, from /proc (Linux: nice is per thread). */
  const niceOf = (task: string) => Number(fs.readFileSync(`/proc/self/task/${task}/stat`, "utf8").split(") ")[1].split(" ")[16]);

  it("delivers from a thread of lower CPU priority than the API's (every delivery above came through it)", () => {
    const main = niceOf(String(process.pid));
    const others = fs.readdirSync("/proc/self/task").filter((task) => task !== String(process.pid)).map(niceOf);
    expect(others).toContain(Math.min(19, main + HOOK_THREAD_NICE));
  });

  it("is started again when it fails, and stops", async () => {
    const hooks = startHookThread();
    try {
      const first = hooks.current()!;
      await new Promise((resolve) => first.once("online", resolve));
      const logged = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        await first.terminate();
        await expect.poll(() => hooks.current() !== undefined && hooks.current() !== first, { timeout: 5000 }).toBe(true);
        expect(logged.mock.calls.flat().join(" ")).toContain("hooks: thread ended; starting it again in 1 s");
      } finally {
        logged.mockRestore();
      }
      const second = hooks.current()!;
      const exited = new Promise((resolve) => second.once("exit", resolve));
      await hooks.stop();
      await exited;
      await new Promise((r) => setTimeout(r, 1200));
      expect(hooks.current()).toBe(second); // not started again after a stop
    } finally {
      await hooks.stop();
    }
  });
});
