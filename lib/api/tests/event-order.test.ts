import { describe, expect, it } from "vitest";
import { apiSuite } from "../../testing/api-suite";
import { transaction } from "../../db/query";
import { collectionState } from "../../documents/collection-state";
import { deleteDocumentsWhere, insertDocument, replaceDocument } from "../../documents/document-statements";
import { lockDocument } from "../../documents/save-document";
import { readCommittedEvents, OUTBOX_START } from "../../outbox/outbox-events";
import { sql } from "../../db/sql";
import { openSse } from "../../testing/sse-client";
import { insertFileRows } from "../../files/file-rows";
import { fileRecord, type FileRow } from "../../files/file-record";

// Per-document commit order (issue 11: "keeps per-hook, per-document commit order"; CONTRACT §13).
// A transaction that got its transaction id before it waited for a document's row lock commits
// its change of that document after the lock's holder, yet has the smaller id. The outbox is read
// in transaction-id order, so without care the stale change would be delivered last.
describe("outbox order of one document's changes", () => {
  const suite = apiSuite();

  async function waitUntilBlocked(db: typeof suite.db, pid: number) {
    for (let i = 0; i < 500; i++) {
      const { rows } = await db.query("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1", [pid]);
      if (rows[0]?.wait_event_type === "Lock") return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error("the early transaction never waited for the lock");
  }

  async function eventsOf(projectId: string, documentId: string) {
    const { events } = await readCommittedEvents(suite.db as never, { after: OUTBOX_START, limit: 1000, projectId, collections: ["order"], documents: true });
    return events.filter((e) => e.documentId === documentId).map((e) => ({ kind: e.kind, v: e.document?.v }));
  }

  async function setUp(documentId: string) {
    const projectId = suite.owner.project;
    const scope = { projectId, dataSizeLimit: 0 };
    await transaction(async (client) => {
      await insertDocument(client, scope, "order", await collectionState(projectId, "order", client), { _id: documentId, v: "first" });
    });
    return { projectId, scope, state: await collectionState(projectId, "order") };
  }

  /**
   * `early` takes its transaction id first (by default it writes another document), then waits
   * for `doc`'s lock, which `late` holds with a younger id; `late` commits first. Returns once
   * both did.
   */
  async function race(
    documentId: string,
    late: (client: never) => Promise<unknown>,
    early: (client: never) => Promise<unknown>,
    takeTxid?: (client: never) => Promise<unknown>,
  ) {
    const { projectId, scope, state } = await setUp(documentId);
    let releaseLate!: () => void;
    const lateMayCommit = new Promise<void>((resolve) => (releaseLate = resolve));
    let lateLocked!: () => void;
    const lateHasLock = new Promise<void>((resolve) => (lateLocked = resolve));
    let earlyPid = 0;
    let earlyHasId!: () => void;
    const earlyHasTxid = new Promise<void>((resolve) => (earlyHasId = resolve));

    const earlyDone = transaction(async (client) => {
      earlyPid = (await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
      if (takeTxid) await takeTxid(client as never);
      else await insertDocument(client, scope, "order", state, { _id: `${documentId}-other`, v: "other" });
      earlyHasId();
      await lateHasLock;
      await early(client as never);
    });
    await earlyHasTxid;
    const lateDone = transaction(async (client) => {
      await late(client as never);
      lateLocked();
      await lateMayCommit;
    });
    await lateHasLock;
    await waitUntilBlocked(suite.db, earlyPid);
    releaseLate();
    await lateDone;
    await earlyDone;
    return { projectId, scope, state };
  }

  it("a replace that waited for the lock is read after the one that held it, though its transaction is older", async () => {
    const projectId = suite.owner.project;
    const scope = { projectId, dataSizeLimit: 0 };
    const replace = (v: string) => async (client: never) => {
      const state = await collectionState(projectId, "order");
      const before = await lockDocument(client, projectId, "order", "r1");
      await replaceDocument(client, scope, "order", state, before!, { _id: "r1", v });
    };
    await race("r1", replace("late, committed first"), replace("early, committed last"));

    const stored = await suite.db.query("SELECT data->>'v' AS v FROM documents WHERE project_id = $1 AND collection_id = 'order' AND id = 'r1'", [projectId]);
    expect(stored.rows[0].v).toBe("early, committed last");
    // The last event a consumer sees is the state that stayed.
    expect(await eventsOf(projectId, "r1")).toEqual([
      { kind: "created", v: "first" },
      { kind: "updated", v: "late, committed first" },
      { kind: "updated", v: "early, committed last" },
    ]);
  });

  it("a delete that waited for the lock is read after the update that held it", async () => {
    const projectId = suite.owner.project;
    const scope = { projectId, dataSizeLimit: 0 };
    await race(
      "d1",
      async (client) => {
        const state = await collectionState(projectId, "order");
        const before = await lockDocument(client, projectId, "order", "d1");
        await replaceDocument(client, scope, "order", state, before!, { _id: "d1", v: "updated, committed first" });
      },
      (client) => deleteDocumentsWhere(client, projectId, "order", sql`id = ${"d1"}`),
    );
    expect(await eventsOf(projectId, "d1")).toEqual([
      { kind: "created", v: "first" },
      { kind: "updated", v: "updated, committed first" },
      { kind: "deleted", v: "updated, committed first" },
    ]);
  });

  it("a file record deleted by a write that waited for the document's lock is read after its creation", async () => {
    const projectId = suite.owner.project;
    const scope = { projectId, dataSizeLimit: 0 };
    const row = (id: string): FileRow => ({
      project_id: projectId, id, collection_id: "order", document_id: "f1", property: "photo", name: `${id}.bin`,
      content_type: "application/octet-stream", size: 1, md5: "0".repeat(32), blob_key: `${projectId}/order-test/${id}`, date_created: new Date(), last_access: new Date(),
    });
    const holding = (id: string) => async (client: never) => {
      const state = await collectionState(projectId, "order");
      const before = await lockDocument(client, projectId, "order", "f1");
      await replaceDocument(client, scope, "order", state, before!, { _id: "f1", photo: fileRecord(row(id)) });
    };
    // Each write stores its new file first; the early one's (and its transaction id) comes first,
    // then it waits for the document the late one holds, and releases the late one's file.
    await race(
      "f1",
      async (client) => {
        await insertFileRows(client, [row("late-file")], 0, []);
        await holding("late-file")(client);
      },
      holding("early-file"),
      (client) => insertFileRows(client, [row("early-file")], 0, []),
    );
    const { events } = await readCommittedEvents(suite.db as never, { after: OUTBOX_START, limit: 1000, projectId, collections: ["_files"], documents: false });
    expect(events.filter((e) => e.documentId === "late-file").map((e) => e.kind)).toEqual(["created", "deleted"]);
    expect(events.filter((e) => e.documentId === "early-file").map((e) => e.kind)).toEqual(["created"]);
  });

  it("through the API too: the change feed replays one document's changes in the order they were stored", async () => {
    const { server, owner } = suite;
    const feed = await openSse(`${server.url}/api/collections/order/events/?project=${owner.project}&token=${encodeURIComponent(owner.token)}&last_event_id=0`);
    expect(feed.status).toBe(200);
    const events = await feed.waitFor(8);
    feed.close();
    const r1 = events.map((e) => JSON.parse(e.data)).filter((doc) => doc._id === "r1");
    expect(r1.map((doc) => doc.v)).toEqual(["first", "late, committed first", "early, committed last"]);
  });
});
