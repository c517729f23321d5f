import http from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { apiApp } from "../app";
import { apiSuite } from "../../testing/api-suite";
import { createProject, createToken, ownerWithProject, signUpUser } from "../../testing/fixtures";
import { openSse, type SseConnection } from "../../testing/sse-client";

const t = apiSuite();
const open: SseConnection[] = [];
afterAll(() => open.forEach((c) => c.close()));

let counter = 0;
const unique = (prefix: string) => `${prefix}${++counter}${Date.now().toString(36)}`;
const docs = (c: string) => `/api/collections/${c}/documents/`;
const as = (extra: Record<string, unknown> = {}) => ({ project: t.owner.project, token: t.owner.token, ...extra });

async function subscribe(path: string, options: { token?: string; project?: string; headers?: Record<string, string> } = {}) {
  const token = options.token ?? t.owner.token;
  const separator = path.includes("?") ? "&" : "?";
  const connection = await openSse(`${t.server.url}${path}${separator}token=${encodeURIComponent(token)}`, {
    "x-project": options.project ?? t.owner.project,
    ...options.headers,
  });
  open.push(connection);
  return connection;
}

const summary = (events: { id?: string; event: string; data: string }[]) => events.map((e) => [e.event, JSON.parse(e.data)._id]);

describe("change feed", () => {
  it("streams creates, updates and deletes of every write path in commit order, with proxy-safe headers", async () => {
    const c = unique("feed");
    const feed = await subscribe(`/api/collections/${c}/events/`);
    expect(feed.status).toBe(200);
    expect(feed.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(feed.headers["cache-control"]).toContain("no-cache");
    expect(feed.headers["x-accel-buffering"]).toBe("no");
    await t.server.request(docs(c), as({ json: { _id: "a", n: 1 } }));
    await t.server.request(`${docs(c)}a/`, as({ method: "PATCH", json: { n: 2 } }));
    await t.server.request(`${docs(c)}b/`, as({ method: "PUT", json: { n: 1 } }));
    await t.server.request(docs(c), as({ action: "update", json: { filter: {}, operation: { $inc: { n: 1 } } } }));
    await t.server.request(`${docs(c)}a/`, as({ method: "DELETE" }));
    await t.server.request(docs(c), as({ action: "delete", json: {} }));
    const events = await feed.waitFor(7);
    expect(summary(events)).toEqual([
      ["created", "a"],
      ["updated", "a"],
      ["created", "b"],
      ["updated", "a"],
      ["updated", "b"],
      ["deleted", "a"],
      ["deleted", "b"],
    ]);
    expect(JSON.parse(events[3].data)).toEqual({ _id: "a", n: 3 });
    expect(JSON.parse(events[5].data)).toEqual({ _id: "a", n: 3 }); // a deleted document as it was
    const ids = events.map((e) => Number(e.id));
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1])).toBe(true);
    // Every write path records its document copy's size, which readers page the outbox by.
    const { rows } = await t.db.query(
      "SELECT count(*)::int AS n, bool_and(size = octet_length(coalesce(after, before)::text)) AS exact FROM document_events WHERE project_id = $1 AND collection_id = $2",
      [t.owner.project, c],
    );
    expect(rows[0]).toEqual({ n: 7, exact: true });
  });

  it("catches up over large documents page by page (1 MiB of documents a read), nothing missed, in order", async () => {
    const c = unique("large");
    const first = await subscribe(`/api/collections/${c}/events/`);
    await t.server.request(docs(c), as({ json: { _id: "start" } }));
    await first.waitFor(1);
    first.close();
    await first.closed;
    const text = "x".repeat(700 * 1024);
    for (const id of ["l1", "l2", "l3", "l4"]) expect((await t.server.request(docs(c), as({ json: { _id: id, text } }))).status).toBe(201);
    const resumed = await subscribe(`/api/collections/${c}/events/`, { headers: { "last-event-id": first.lastEventId! } });
    const events = await resumed.waitFor(4);
    expect(summary(events)).toEqual([["created", "l1"], ["created", "l2"], ["created", "l3"], ["created", "l4"]]);
    expect(JSON.parse(events[3].data).text).toHaveLength(text.length);
  });

  it("applies the filter per document and serves several collections at once", async () => {
    const [a, b, other] = [unique("fa"), unique("fb"), unique("fo")];
    const filter = encodeURIComponent(JSON.stringify({ n: { $gte: 10 } }));
    // Repeated as well as comma-separated: none is ignored.
    const feed = await subscribe(`/api/events/?collections=${a}&collections=${b}&filter=${filter}`);
    await t.server.request(docs(a), as({ json: { _id: "small", n: 1 } }));
    await t.server.request(docs(other), as({ json: { _id: "elsewhere", n: 50 } }));
    await t.server.request(docs(b), as({ json: { _id: "big", n: 20 } }));
    await t.server.request(docs(a), as({ json: { _id: "bigger", n: 30 } }));
    expect(summary(await feed.waitFor(2))).toEqual([
      ["created", "big"],
      ["created", "bigger"],
    ]);
    await new Promise((r) => setTimeout(r, 100));
    expect(feed.events).toHaveLength(2);
  });

  it("shapes each event's document with fields / fields_exclude as a list does, after the filter saw all of it; a malformed field is 400", async () => {
    const c = unique("shaped");
    const filter = encodeURIComponent(JSON.stringify({ secret: "match" }));
    const picked = await subscribe(`/api/collections/${c}/events/?fields=title,meta.a&filter=${filter}`);
    const dropped = await subscribe(`/api/collections/${c}/events/?fields_exclude=secret`);
    const whole = await subscribe(`/api/collections/${c}/events/`);
    const document = { _id: "s1", title: "T", secret: "match", meta: { a: 1, b: 2 } };
    await t.server.request(docs(c), as({ json: document }));
    await t.server.request(`${docs(c)}s1/`, as({ method: "DELETE" }));
    const data = async (feed: SseConnection) => (await feed.waitFor(2)).map((e) => [e.event, JSON.parse(e.data)]);
    expect(await data(picked)).toEqual([
      ["created", { _id: "s1", title: "T", meta: { a: 1 } }],
      ["deleted", { _id: "s1", title: "T", meta: { a: 1 } }],
    ]);
    expect(await data(dropped)).toEqual([
      ["created", { _id: "s1", title: "T", meta: { a: 1, b: 2 } }],
      ["deleted", { _id: "s1", title: "T", meta: { a: 1, b: 2 } }],
    ]);
    expect(await data(whole)).toEqual([
      ["created", document],
      ["deleted", document],
    ]);
    const malformed = await subscribe(`/api/collections/${c}/events/?fields=a..b`);
    expect(malformed.status).toBe(400);
  });

  it("applies the credential's read permission per document", async () => {
    const [open1, closed1] = [unique("open"), unique("closed")];
    const token = await t.server.request("/api/collections/_tokens/documents/", as({
      json: { permission: { allow: { read: [open1, { what: "document", where: closed1, what_id: "visible" }] } } },
    }));
    const reader = token.body.token;
    const feed = await subscribe(`/api/events/?collections=${open1},${closed1}`, { token: reader });
    expect(feed.status).toBe(200);
    await t.server.request(docs(closed1), as({ json: { _id: "hidden" } }));
    await t.server.request(docs(closed1), as({ json: { _id: "visible" } }));
    await t.server.request(docs(open1), as({ json: { _id: "anything" } }));
    expect(summary(await feed.waitFor(2))).toEqual([
      ["created", "visible"],
      ["created", "anything"],
    ]);
    // A token that reads nothing of a collection cannot subscribe to it.
    const denied = await subscribe(`/api/collections/${unique("nope")}/events/`, { token: reader });
    expect(denied.status).toBe(403);
  });

  it("ends an open stream once its credential no longer reads the collection (token revoked or narrowed)", async () => {
    process.env.ARCA_FEED_AUTH_RECHECK_MS = "100";
    try {
      const c = unique("revoked");
      const mint = async (read: unknown[]) =>
        (await t.server.request("/api/collections/_tokens/documents/", as({ json: { permission: { allow: { read } } } }))).body as { _id: string; token: string };
      const revoked = await mint([c]);
      const narrowed = await mint([c]);
      const feeds = [await subscribe(`/api/collections/${c}/events/`, { token: revoked.token }), await subscribe(`/api/collections/${c}/events/`, { token: narrowed.token })];
      await t.server.request(docs(c), as({ json: { _id: "before" } }));
      for (const feed of feeds) expect(summary(await feed.waitFor(1))).toEqual([["created", "before"]]);
      expect((await t.server.request(`/api/collections/_tokens/documents/${revoked._id}/`, as({ method: "DELETE" }))).status).toBe(204);
      const patched = await t.server.request(`/api/collections/_tokens/documents/${narrowed._id}/`, as({ method: "PATCH", json: { permission: { allow: { read: ["elsewhere"] } } } }));
      expect(patched.status, patched.text).toBe(200);
      // Within the auth cache (1 s) and a recheck, both streams end.
      for (const feed of feeds) await Promise.race([feed.closed, new Promise((_, reject) => setTimeout(() => reject(new Error("stream still open")), 5000))]);
      await t.server.request(docs(c), as({ json: { _id: "after" } }));
      for (const feed of feeds) expect(summary(feed.events)).toEqual([["created", "before"]]);
    } finally {
      delete process.env.ARCA_FEED_AUTH_RECHECK_MS;
    }
  });

  it("resumes after a dropped connection with nothing missed and nothing repeated (header or query parameter)", async () => {
    const c = unique("resume");
    const first = await subscribe(`/api/collections/${c}/events/`);
    await t.server.request(docs(c), as({ json: { _id: "one" } }));
    await first.waitFor(1);
    first.close();
    await first.closed;
    await t.server.request(docs(c), as({ json: { _id: "two" } }));
    await t.server.request(`${docs(c)}one/`, as({ method: "PATCH", json: { x: 1 } }));
    const resumed = await subscribe(`/api/collections/${c}/events/`, { headers: { "last-event-id": first.lastEventId! } });
    await t.server.request(docs(c), as({ json: { _id: "three" } }));
    expect(summary(await resumed.waitFor(3))).toEqual([
      ["created", "two"],
      ["updated", "one"],
      ["created", "three"],
    ]);
    const byQuery = await subscribe(`/api/collections/${c}/events/?last_event_id=${first.lastEventId}`);
    expect(summary(await byQuery.waitFor(3))).toEqual(summary(resumed.events));
    // An empty Last-Event-ID header does not hide the query parameter.
    const emptyHeader = await subscribe(`/api/collections/${c}/events/?last_event_id=${first.lastEventId}`, { headers: { "last-event-id": "" } });
    expect(summary(await emptyHeader.waitFor(3))).toEqual(summary(resumed.events));
    await new Promise((r) => setTimeout(r, 100));
    expect(resumed.events).toHaveLength(3);
  });

  it("a fresh subscriber starts at the newest event by transaction id as a number, not as text", async () => {
    const c = unique("digits");
    // Old events on both sides of a digit boundary: as text "5" sorts after "10".
    for (const [doc, txid] of [["old-10", "10"], ["old-5", "5"]])
      await t.db.query("INSERT INTO document_events (project_id, collection_id, document_id, kind, after, size, txid) VALUES ($1, $2, $3, 'created', $4, 20, $5::xid8)", [
        t.owner.project, c, doc, JSON.stringify({ _id: doc }), txid,
      ]);
    const feed = await subscribe(`/api/collections/${c}/events/`);
    await t.server.request(docs(c), as({ json: { _id: "new" } }));
    expect(summary(await feed.waitFor(1))).toEqual([["created", "new"]]);
    await new Promise((r) => setTimeout(r, 150));
    expect(summary(feed.events)).toEqual([["created", "new"]]);
  });

  it("a fresh subscriber learns its position at once, so it can resume even before any change", async () => {
    const c = unique("position");
    await t.server.request(docs(c), as({ json: { _id: "before" } }));
    // Wait until no older transaction (of any test sharing the server) holds that event back.
    await expect
      .poll(async () => (await t.db.query("SELECT count(*)::int AS n FROM document_events WHERE project_id = $1 AND collection_id = $2 AND txid < pg_snapshot_xmin(pg_current_snapshot())", [t.owner.project, c])).rows[0].n)
      .toBe(1);
    const feed = await subscribe(`/api/collections/${c}/events/`);
    const deadline = Date.now() + 5000;
    while (!feed.lastEventId && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(feed.lastEventId).toMatch(/^\d+$/);
    expect(feed.events).toEqual([]);
    feed.close();
    await t.server.request(docs(c), as({ json: { _id: "while-away" } }));
    const resumed = await subscribe(`/api/collections/${c}/events/`, { headers: { "last-event-id": feed.lastEventId! } });
    expect(summary(await resumed.waitFor(1))).toEqual([["created", "while-away"]]);
  });

  it("serves the same stream through the Next door (a web ReadableStream) and lets go of it on cancel", async () => {
    const c = unique("nextdoor");
    const response = await apiApp().fetch(
      new Request(`http://localhost/api/collections/${c}/events/?token=${encodeURIComponent(t.owner.token)}`, { headers: { "x-project": t.owner.project } }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${pattern}: ${text}`);
        text += decoder.decode(value);
      }
    };
    await readUntil(/^retry: 2000\nid: \d+\n\n/);
    await t.server.request(docs(c), as({ json: { _id: "through-next" } }));
    await readUntil(/event: created\ndata: \{[^\n]*"_id":"through-next"/);
    await reader.cancel();

    // Resuming behind a backlog of large documents: caught up at the reader's pace.
    const from = /id: (\d+)\nevent: created\ndata: \{[^\n]*"_id":"through-next"/.exec(text)![1];
    const big = "y".repeat(600_000);
    for (let i = 0; i < 4; i++) await t.server.request(docs(c), as({ json: { _id: `next-big${i}`, big } }));
    const resumed = await apiApp().fetch(
      new Request(`http://localhost/api/collections/${c}/events/?token=${encodeURIComponent(t.owner.token)}&last_event_id=${from}`, { headers: { "x-project": t.owner.project } }),
    );
    const again = resumed.body!.getReader();
    let backlog = "";
    while ((backlog.match(/"_id":"next-big\d"/g) ?? []).length < 4) {
      const { value, done } = await again.read();
      if (done) throw new Error("stream ended during the backlog");
      backlog += decoder.decode(value);
    }
    expect(backlog.match(/"_id":"next-big\d"/g)).toEqual([0, 1, 2, 3].map((i) => `"_id":"next-big${i}"`));
    await again.cancel();
  });

  it("drops a subscriber that does not read once over 1 MiB waits for it; it resumes from its last id with nothing missed", async () => {
    const c = unique("slowreader");
    const url = `${t.server.url}/api/collections/${c}/events/?token=${encodeURIComponent(t.owner.token)}`;
    let body = "";
    let response!: http.IncomingMessage;
    const ended = new Promise<void>((resolve, reject) => {
      http
        .get(url, { headers: { "x-project": t.owner.project, accept: "text/event-stream" } }, (res) => {
          response = res;
          res.setEncoding("utf8");
          res.once("data", (chunk: string) => {
            body += chunk; // the position frame; then stop reading
            res.pause();
            res.on("data", (more: string) => (body += more));
          });
          res.on("end", resolve);
          res.on("error", reject);
        })
        .on("error", reject);
    });
    await expect.poll(() => body).toMatch(/^retry: 2000\nid: \d+\n\n/);
    // ~17 MB of events: more than loopback's socket buffers plus the 1 MiB the server queues.
    const big = "x".repeat(700_000);
    const ids = Array.from({ length: 24 }, (_, i) => `big${String(i).padStart(2, "0")}`);
    for (const id of ids) expect((await t.server.request(docs(c), as({ json: { _id: id, big } }))).status).toBe(201);
    await new Promise((r) => setTimeout(r, 300));
    response.resume();
    await ended; // the server ended the stream: dropped
    const received = [...body.matchAll(/^data: \{"_id":"(big\d+)"/gm)].map((m) => m[1]);
    expect(received.length).toBeGreaterThan(0);
    expect(received.length).toBeLessThan(ids.length);
    expect(received).toEqual(ids.slice(0, received.length));
    const lastId = [...body.matchAll(/^id: (\d+)$/gm)].at(-1)![1];
    const resumed = await subscribe(`/api/collections/${c}/events/`, { headers: { "last-event-id": lastId } });
    // A backlog of ~11 MB: caught up at the client's pace, not dropped for it.
    await expect.poll(() => resumed.events.length, { timeout: 20_000 }).toBe(ids.length - received.length);
    expect(resumed.events.map((e) => JSON.parse(e.data)._id)).toEqual(ids.slice(received.length));
  });

  it("410 Events expired past settings.events_ttl or once pruned; 400 for a malformed Last-Event-ID", async () => {
    const other = await ownerWithProject(t.server);
    const c = unique("expiry");
    await t.server.request(docs(c), { project: other.project, token: other.token, json: { _id: "old" } });
    const { rows } = await t.db.query("SELECT id FROM document_events WHERE project_id = $1 AND collection_id = $2", [other.project, c]);
    const id = rows[0].id;
    await t.db.query("UPDATE document_events SET created_at = now() - interval '2 hours' WHERE id = $1", [id]);
    await t.server.request(`/api/user/projects/${other.project}/`, { session: other.session, method: "PATCH", json: { settings: { events_ttl: "1h" } } });
    const expired = await subscribe(`/api/collections/${c}/events/`, { token: other.token, project: other.project, headers: { "last-event-id": String(id) } });
    expect(expired.status).toBe(410);
    await expired.closed;
    expect(JSON.parse(expired.body)).toEqual({ message: "Events expired" });
    const gone = await subscribe(`/api/collections/${c}/events/?last_event_id=999999999999`, { token: other.token, project: other.project });
    expect(gone.status).toBe(410);
    const malformed = await subscribe(`/api/collections/${c}/events/?last_event_id=abc`, { token: other.token, project: other.project });
    expect(malformed.status).toBe(400);
    await malformed.closed;
    // A list's text search is refused on the feed, never ignored (it streamed everything).
    const searched = await subscribe(`/api/collections/${c}/events/?text=fox`, { token: other.token, project: other.project });
    expect(searched.status).toBe(400);
    await searched.closed;
    expect(JSON.parse(searched.body)).toEqual({ message: "text is not taken by the change feed: select changes with filter" });
  });

  it("EventSource on the bare host names the project with ?project=", async () => {
    const c = unique("byquery");
    const connection = await openSse(`${t.server.url}/api/collections/${c}/events/?project=${t.owner.project}&token=${encodeURIComponent(t.owner.token)}`);
    open.push(connection);
    expect(connection.status).toBe(200);
    await t.server.request(docs(c), as({ json: { _id: "q" } }));
    expect(summary(await connection.waitFor(1))).toEqual([["created", "q"]]);
    // Only the feed takes it: other routes still need the host or X-Project.
    const list = await t.server.request(`/api/collections/${c}/documents/?project=${t.owner.project}`, { token: t.owner.token });
    expect(list.status).toBe(404);
  });

  it("HEAD answers a feed's headers and ends (no open stream), with ?project= on the bare host too; errors as GET's", async () => {
    const { rawRequest } = await import("../../testing/raw-request");
    const c = unique("head");
    for (const target of [`/api/collections/${c}/events/`, `/api/events/?collections=${c}`]) {
      const res = await rawRequest(t.server.port, `${target}${target.includes("?") ? "&" : "?"}project=${t.owner.project}&token=${encodeURIComponent(t.owner.token)}`, { method: "HEAD", timeoutMs: 5000 });
      expect(res.status, target).toBe(200);
      expect(res.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    }
    const forbidden = await rawRequest(t.server.port, `/api/collections/_users/events/?project=${t.owner.project}&token=${encodeURIComponent(t.owner.token)}`, { method: "HEAD", timeoutMs: 5000 });
    expect(forbidden.status).toBe(404);
    // A system collection that exists says why it has no feed; an unknown `_` name is just not found.
    expect((await t.server.request("/api/collections/_tokens/events/", as())).body).toEqual({ message: "_tokens has no change feed: the feed follows user collections and _files" });
    expect((await t.server.request("/api/collections/_nothing/events/", as())).body).toEqual({ message: "Collection not found." });
  });

  it("ends the streams of a deleted project before a project made again under its id is heard (someone else's)", async () => {
    // Only the deletion may end them: no credential recheck within the test.
    process.env.ARCA_FEED_AUTH_RECHECK_MS = "600000";
    try {
      const first = await ownerWithProject(t.server);
      const c = unique("reused");
      const feed = await subscribe(`/api/collections/${c}/events/`, { token: first.token, project: first.project });
      await t.server.request(docs(c), { project: first.project, token: first.token, json: { _id: "theirs-before" } });
      expect(summary(await feed.waitFor(1))).toEqual([["created", "theirs-before"]]);
      expect((await t.server.request(`/api/user/projects/${first.project}/`, { session: first.session, method: "DELETE" })).status).toBe(204);
      const next = await signUpUser(t.server);
      await createProject(t.server, next.session, first.project);
      const nextToken = await createToken(t.server, next.session, first.project);
      expect((await t.server.request(docs(c), { project: first.project, token: nextToken, json: { _id: "private", card: "4111" } })).status).toBe(201);
      await Promise.race([feed.closed, new Promise((_, reject) => setTimeout(() => reject(new Error("stream still open")), 5000))]);
      expect(summary(feed.events)).toEqual([["created", "theirs-before"]]);
    } finally {
      delete process.env.ARCA_FEED_AUTH_RECHECK_MS;
    }
  });

  it("keeps projects apart: another project's events and positions are invisible", async () => {
    const other = await ownerWithProject(t.server);
    const c = unique("isolated");
    const theirs = await subscribe(`/api/collections/${c}/events/`, { token: other.token, project: other.project });
    await t.server.request(docs(c), as({ json: { _id: "mine" } }));
    await t.server.request(docs(c), { project: other.project, token: other.token, json: { _id: "theirs" } });
    expect(summary(await theirs.waitFor(1))).toEqual([["created", "theirs"]]);
    await new Promise((r) => setTimeout(r, 100));
    expect(theirs.events).toHaveLength(1);
    const { rows } = await t.db.query("SELECT id FROM document_events WHERE project_id = $1 AND collection_id = $2", [t.owner.project, c]);
    const mine = await subscribe(`/api/collections/${c}/events/`, { token: other.token, project: other.project, headers: { "last-event-id": String(rows[0].id) } });
    expect(mine.status).toBe(410);
    // A token of one project does not open another's feed.
    const cross = await subscribe(`/api/collections/${c}/events/`, { token: other.token, project: t.owner.project });
    expect(cross.status).toBe(401);
  });

  it("fans one event out to 1,000 subscribers of one process", async () => {
    const c = unique("fanout");
    const feeds = await Promise.all(Array.from({ length: 1000 }, () => subscribe(`/api/collections/${c}/events/`)));
    expect(feeds.every((f) => f.status === 200)).toBe(true);
    await t.server.request(docs(c), as({ json: { _id: "everyone" } }));
    await Promise.all(feeds.map((f) => f.waitFor(1, 20_000)));
    expect(feeds.every((f) => summary(f.events)[0][1] === "everyone")).toBe(true);
    feeds.forEach((f) => f.close());
  }, 60_000);
});

describe("the _files feed", () => {
  it("streams file records created by uploads and deleted with their records or documents", async () => {
    const { form, PNG } = await import("./files-helpers");
    const feed = await subscribe(`/api/collections/_files/events/`);
    expect(feed.status).toBe(200);
    const uploaded = await t.server.request("/api/collections/_files/documents/", as({ body: form([["file", PNG, "one.png"]]) }));
    expect(uploaded.status, uploaded.text).toBe(201);
    const c = unique("withfiles");
    const attached = await t.server.request(docs(c), as({ body: form([["_id", '"holder"'], ["photo", PNG, "two.png"]]) }));
    expect(attached.status, attached.text).toBe(201);
    expect((await t.server.request(`/api/collections/_files/documents/${uploaded.body._id}/`, as({ method: "DELETE" }))).status).toBe(204);
    expect((await t.server.request(`${docs(c)}holder/`, as({ method: "DELETE" }))).status).toBe(204);
    const events = await feed.waitFor(4);
    expect(events.map((e) => [e.event, JSON.parse(e.data).name])).toEqual([
      ["created", "one.png"],
      ["created", "two.png"],
      ["deleted", "one.png"],
      ["deleted", "two.png"],
    ]);
    expect(JSON.parse(events[0].data)).toEqual(uploaded.body);
    expect(Object.keys(JSON.parse(events[3].data)).sort()).toEqual(Object.keys(uploaded.body).sort());
  });
});
