import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { comparePositions, currentPosition, OUTBOX_START, readCommittedEvents, type OutboxPosition } from "./outbox-events";

// Events are read in commit order, committed only: the RECIPES case of two overlapping
// transactions that commit in the opposite order of their event ids.
describe("outbox reader", () => {
  const url = inject("databaseUrl");
  const clients: pg.Client[] = [];
  let reader: pg.Pool;
  const project = `outbox-${Date.now().toString(36)}`;

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      clients.push(client);
    }
    reader = new pg.Pool({ connectionString: url, max: 2 });
  });
  afterAll(async () => {
    for (const client of clients) await client.end();
    await reader.end();
  });

  const insert = (client: pg.Client, doc: string) =>
    client.query("INSERT INTO document_events (project_id, collection_id, document_id, kind, after) VALUES ($1, 'c', $2, 'created', $3) RETURNING id", [
      project,
      doc,
      JSON.stringify({ _id: doc }),
    ]);

  async function readAll(after: OutboxPosition) {
    return readCommittedEvents(reader, { after, limit: 100, projectId: project, documents: true });
  }

  it("never passes an event whose transaction commits later, and holds back nothing once it has", async () => {
    const start = await currentPosition(reader, project);
    const [slow, fast] = clients;
    await slow.query("BEGIN");
    const slowId = (await insert(slow, "slow")).rows[0].id; // the lower id...
    await fast.query("BEGIN");
    const fastId = (await insert(fast, "fast")).rows[0].id;
    await fast.query("COMMIT"); // ...commits second
    expect(Number(slowId)).toBeLessThan(Number(fastId));

    // The fast transaction is committed but younger than the still-running slow one: held back.
    const first = await readAll(start);
    expect(first.events.map((e) => e.documentId)).toEqual([]);
    expect(first.held).toBe(true);

    await slow.query("COMMIT");
    const second = await readAll(start);
    expect(second.events.map((e) => e.documentId)).toEqual(["slow", "fast"]);
    expect(second.events[0].document).toEqual({ _id: "slow" });
    expect(second.held).toBe(false);

    // Resuming after the last event read gives nothing more; after the first, the second.
    const last = second.events[1];
    expect((await readAll(last)).events).toEqual([]);
    expect((await readAll(second.events[0])).events.map((e) => e.documentId)).toEqual(["fast"]);
    expect(comparePositions(second.events[0], last)).toBeLessThan(0);
  });

  it("skips an aborted transaction's events", async () => {
    const start = await currentPosition(reader, project);
    const [a] = clients;
    await a.query("BEGIN");
    await insert(a, "aborted");
    await a.query("ROLLBACK");
    await insert(a, "kept");
    const { events } = await readAll(start);
    expect(events.map((e) => e.documentId)).toEqual(["kept"]);
  });

  it("compares positions by transaction id as a number, then by event id", () => {
    expect(comparePositions({ txid: "99", id: 5 }, { txid: "100", id: 1 })).toBeLessThan(0);
    expect(comparePositions({ txid: "100", id: 1 }, { txid: "99", id: 5 })).toBeGreaterThan(0);
    expect(comparePositions({ txid: "123", id: 2 }, { txid: "124", id: 1 })).toBeLessThan(0);
    expect(comparePositions({ txid: "123", id: 2 }, { txid: "123", id: 3 })).toBeLessThan(0);
    expect(comparePositions({ txid: "123", id: 3 }, { txid: "123", id: 3 })).toBe(0);
  });

  it("pages by bytes of documents as well as by count, a larger document alone, and says when a page is full", async () => {
    const [a] = clients;
    const start = await currentPosition(reader, project);
    // Sizes as the writers record them; the last event predates the column (NULL: stored size).
    for (const [doc, size] of [["s1", 400], ["s2", 400], ["s3", 400], ["big", 5000], ["s4", 100]] as const)
      await a.query("INSERT INTO document_events (project_id, collection_id, document_id, kind, after, size) VALUES ($1, 'c', $2, 'created', $3, $4)", [
        project, doc, JSON.stringify({ _id: doc }), size,
      ]);
    await insert(a, "unsized");
    const read = (after: OutboxPosition, limit = 100) =>
      readCommittedEvents(reader, { after, limit, projectId: project, documents: true, maxBytes: 1000 });

    const pages: string[][] = [];
    const fullness: boolean[] = [];
    let at = start;
    for (;;) {
      const page = await read(at);
      pages.push(page.events.map((e) => e.documentId));
      fullness.push(page.full);
      if (!page.full) break;
      at = page.events[page.events.length - 1];
    }
    // 400 + 400 + 400 crosses 1000 with the third: it is the page's last.
    expect(pages).toEqual([["s1", "s2", "s3"], ["big"], ["s4", "unsized"]]);
    expect(fullness).toEqual([true, true, false]);
    expect(pages.flat()).toEqual(["s1", "s2", "s3", "big", "s4", "unsized"]);

    // A page cut by count is full too; without documents, bytes do not count.
    expect((await read(start, 2)).full).toBe(true);
    const bare = await readCommittedEvents(reader, { after: start, limit: 100, projectId: project, documents: false, maxBytes: 1000 });
    expect(bare.events.map((e) => e.documentId)).toEqual(["s1", "s2", "s3", "big", "s4", "unsized"]);
    expect(bare.full).toBe(false);
  });

  it("reads from the start of the outbox", async () => {
    const { events } = await readAll(OUTBOX_START);
    expect(events.map((e) => e.documentId)).toEqual(["slow", "fast", "kept", "s1", "s2", "s3", "big", "s4", "unsized"]);
  });
});
