import { spawnSync } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createLocalDiskBlobStore } from "../../blob/local-disk-blob-store";
import { collectionPrefix } from "../../collections/collection-indexes";
import { processOwner } from "../../blob/process-owner";
import { opaqueBytes } from "../../testing/fixtures";
import { seedProject } from "../../testing/seed-project";
import { startServeApi, type ServeApiProcess } from "../../testing/serve-api-process";

/**
 * The crash test (issue 17, "a fault and abuse suite that stays"): the API server as a real
 * process (scripts/serve-api.ts) over the test database with its own data dir, SIGKILLed three
 * times in the middle of concurrent uploads, document writes with attachments, plain document
 * writes and file deletions, and restarted on the same data dir. After each restart, once the
 * start-up cleanup has run:
 * - every acknowledged write is there (uploads with their exact bytes, documents with their
 *   attachments), every acknowledged deletion is gone;
 * - no file record without its bytes, no bytes without a record (nor a stray temp file);
 * - `files_size` equals the sum of the records' sizes.
 * Before the first start the data dir also holds a dead process's temp file, a blob nothing
 * knows, a blob of a dead process's unfinished upload (both go) and a blob of a live one's
 * (it stays).
 */
const KILLS = 3;
const ACKS_BEFORE_KILL = 60;
const url = inject("databaseUrl");
const project = `crash-files-${Date.now().toString(36)}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "arca-crash-"));
const store = createLocalDiskBlobStore(path.join(dataDir, "files"));
const env = { DATABASE_URL: url, ARCA_DATA_DIR: dataDir, ARCA_SECRET: "crash-test-secret", SMTP_URL: undefined, ARCA_PG_PORT: undefined };
let db: pg.Client;
let token: string;
let server: ServeApiProcess | undefined;

beforeAll(async () => {
  db = new pg.Client({ connectionString: url });
  await db.connect();
  token = await seedProject(db, project);
});

afterAll(async () => {
  await server?.kill("SIGTERM");
  await db.query("DELETE FROM blob_deletions WHERE blob_key LIKE $1", [`${project}/%`]);
  await db.end();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const md5 = (bytes: Uint8Array) => createHash("md5").update(bytes).digest("hex");

/** What the server acknowledged before it died. */
const acked = {
  files: new Map<string, string>(), // _files id -> md5 of its bytes
  documents: new Map<string, { attachment?: { id: string; md5: string } }>(),
  deleted: new Set<string>(),
};

async function workload(base: string, stopAfter: number): Promise<number> {
  const headers = { "x-project": project, authorization: `Token ${token}` };
  let acks = 0;
  let alive = true;
  let n = 0;
  const loop = (step: () => Promise<boolean>) =>
    (async () => {
      while (alive) {
        try {
          if (await step()) acks++;
        } catch {
          alive = false; // the server is gone
        }
      }
    })();
  const upload = async () => {
    const bytes = opaqueBytes(1 + Math.floor(Math.random() * 200_000));
    const form = new FormData();
    form.append("file", new Blob([bytes]), `f${n++}.bin`);
    const r = await fetch(`${base}/api/collections/_files/documents/`, { method: "POST", headers, body: form });
    if (r.status !== 201) return false;
    acked.files.set((await r.json())._id, md5(bytes));
    return true;
  };
  const documentWithAttachment = async () => {
    const id = `a${n++}-${randomUUID().slice(0, 8)}`;
    const bytes = opaqueBytes(1 + Math.floor(Math.random() * 100_000));
    const form = new FormData();
    form.append("_id", JSON.stringify(id));
    form.append("attachment", new Blob([bytes]), `${id}.bin`);
    const r = await fetch(`${base}/api/collections/crash/documents/`, { method: "POST", headers, body: form });
    if (r.status !== 201) return false;
    acked.documents.set(id, { attachment: { id: (await r.json()).attachment._id, md5: md5(bytes) } });
    return true;
  };
  const plainDocument = async () => {
    const id = `p${n++}-${randomUUID().slice(0, 8)}`;
    const r = await fetch(`${base}/api/collections/crash/documents/`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ _id: id, n }),
    });
    if (r.status !== 201) return false;
    acked.documents.set(id, {});
    return true;
  };
  const deletion = async () => {
    // Delete about one upload in three, so most stay to be checked.
    const id = acked.files.size > 3 * acked.deleted.size ? [...acked.files.keys()].find((k) => !acked.deleted.has(k)) : undefined;
    if (!id) return upload();
    acked.deleted.add(id); // reserved; undone unless acknowledged
    const r = await fetch(`${base}/api/collections/_files/documents/${id}/`, { method: "DELETE", headers }).catch((error) => {
      // Cut off by the kill: the deletion may or may not have committed; either is right.
      acked.deleted.delete(id);
      acked.files.delete(id);
      throw error;
    });
    if (r.status !== 204) acked.deleted.delete(id);
    else acked.files.delete(id);
    return r.status === 204;
  };
  const workers = [loop(upload), loop(upload), loop(documentWithAttachment), loop(documentWithAttachment), loop(plainDocument), loop(deletion)];
  if (stopAfter > 0) {
    while (alive && acks < stopAfter) await new Promise((r) => setTimeout(r, 5));
    // Mid-way: uploads streaming, transactions open, deletions queued.
    await server!.kill("SIGKILL");
  }
  alive = false;
  await Promise.all(workers);
  return acks;
}

/** Blob keys of the project on disk that no record names, and temp files. */
async function strays(): Promise<{ blobs: string[]; temp: string[] }> {
  const { rows } = await db.query("SELECT blob_key FROM files WHERE project_id = $1", [project]);
  const named = new Set(rows.map((r) => r.blob_key));
  const { rows: live } = await db.query("SELECT blob_key FROM blob_deletions WHERE blob_key LIKE $1 AND owner = $2", [`${project}/%`, processOwner()]);
  for (const r of live) named.add(r.blob_key);
  const blobs: string[] = [];
  for await (const key of store.listKeys()) if (key.startsWith(`${project}/`) && !named.has(key)) blobs.push(key);
  const temp = fs.existsSync(path.join(dataDir, "files", "tmp")) ? fs.readdirSync(path.join(dataDir, "files", "tmp")) : [];
  return { blobs, temp };
}

async function waitForCleanup(): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 100) {
    const left = await strays();
    if (left.blobs.length === 0 && left.temp.length === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function assertInvariants(base: string): Promise<void> {
  await waitForCleanup();
  expect(await strays()).toEqual({ blobs: [], temp: [] });

  const { rows: files } = await db.query("SELECT id, blob_key, size::int, md5 FROM files WHERE project_id = $1", [project]);
  // No record without its bytes, of its size.
  for (const f of files) expect((await store.stat(f.blob_key))?.size, f.id).toBe(f.size);
  const ids = new Set(files.map((f) => f.id));
  const headers = { "x-project": project, authorization: `Token ${token}` };
  for (const [id, hash] of acked.files) {
    expect(ids.has(id), `acknowledged upload ${id}`).toBe(true);
    const content = await fetch(`${base}/api/collections/_files/documents/${id}/content/`, { headers });
    expect(md5(new Uint8Array(await content.arrayBuffer()))).toBe(hash);
  }
  for (const id of acked.deleted) expect(ids.has(id), `acknowledged deletion ${id}`).toBe(false);
  const { rows: docs } = await db.query("SELECT id, data FROM documents WHERE project_id = $1 AND collection_id = 'crash'", [project]);
  const byId = new Map(docs.map((d) => [d.id, d.data]));
  for (const [id, written] of acked.documents) {
    expect(byId.has(id), `acknowledged document ${id}`).toBe(true);
    if (written.attachment) {
      expect(byId.get(id).attachment._id).toBe(written.attachment.id);
      expect(files.find((f) => f.id === written.attachment!.id)?.md5).toBe(written.attachment.md5);
    }
  }
  const { rows: sizes } = await db.query(
    `SELECT (SELECT files_size FROM project_totals WHERE project_id = $1)::bigint AS counted,
            (SELECT coalesce(sum(size), 0) FROM files WHERE project_id = $1)::bigint AS actual`,
    [project],
  );
  expect(Number(sizes[0].counted)).toBe(Number(sizes[0].actual));
}

describe("SIGKILL during uploads and writes", () => {
  it(`keeps every acknowledged write and leaves no stray bytes across ${KILLS} kills`, async () => {
    // Leftovers of an earlier crash, planted before the first start.
    const deadPid = spawnSync("true").pid!;
    const deadOwner = `${processOwner().split("-")[0]}-${deadPid}`;
    fs.mkdirSync(path.join(dataDir, "files", "tmp"), { recursive: true });
    const deadTemp = path.join(dataDir, "files", "tmp", `${randomUUID()}.${deadOwner}.part`);
    fs.writeFileSync(deadTemp, "half an upload");
    await store.write(`${project}/unknown`, Readable.from([Buffer.from("nobody's")]));
    await store.write(`${project}/unfinished`, Readable.from([Buffer.from("dead upload")]));
    await store.write(`${project}/in-flight`, Readable.from([Buffer.from("live upload")]));
    await db.query(
      `INSERT INTO blob_deletions (blob_key, not_before, owner) VALUES ($1, now() + interval '1 day', $2), ($3, now() + interval '1 day', $4)`,
      [`${project}/unfinished`, deadOwner, `${project}/in-flight`, processOwner()],
    );

    const counts: number[] = [];
    const cleanups: string[] = [];
    for (let round = 0; round <= KILLS; round++) {
      server = await startServeApi(env);
      if (round === 0) {
        await waitForCleanup();
        expect(fs.existsSync(deadTemp)).toBe(false);
        expect(await store.exists(`${project}/unknown`)).toBe(false);
        expect(await store.exists(`${project}/unfinished`)).toBe(false);
        expect(await store.exists(`${project}/in-flight`)).toBe(true);
      }
      await assertInvariants(server.url);
      const cleaned = /start-up cleanup: .*/.exec(server.output());
      if (cleaned) cleanups.push(`round ${round}: ${cleaned[0]}`);
      if (round < KILLS) counts.push(await workload(server.url, ACKS_BEFORE_KILL));
    }
    expect(await server!.kill("SIGTERM")).toBe(0);
    server = undefined;
    console.info(
      `crash test: ${KILLS} kills, acknowledged per round ${counts.join(", ")}; at the end ${acked.files.size} uploads, ` +
        `${acked.documents.size} documents, ${acked.deleted.size} deletions all as acknowledged\n${cleanups.join("\n")}`,
    );
    expect(acked.files.size + acked.documents.size).toBeGreaterThan(KILLS * ACKS_BEFORE_KILL / 2);
  }, 180_000);
});

describe("SIGKILL during an index save", () => {
  it("a unique index the cut-off save left refuses no write once the server serves again", async () => {
    const headers = { "x-project": project, authorization: `Token ${token}`, "content-type": "application/json" };
    server = await startServeApi(env);
    const made = await fetch(`${server.url}/api/collections/`, { method: "POST", headers, body: JSON.stringify({ _id: "halfsaved" }) });
    expect(made.status).toBe(201);
    // What a save killed after its concurrent build and before its definition's commit leaves.
    const left = `${collectionPrefix(project, "halfsaved")}cutoff`;
    await db.query(`CREATE UNIQUE INDEX "${left}" ON documents ((data -> 'w')) WHERE project_id = '${project}' AND collection_id = 'halfsaved'`);
    await server.kill("SIGKILL");
    server = await startServeApi(env);
    for (const id of ["w1", "w2"]) {
      const written = await fetch(`${server.url}/api/collections/halfsaved/documents/`, { method: "POST", headers, body: JSON.stringify({ _id: id, w: 1 }) });
      expect(written.status, await written.text()).toBe(201);
    }
    expect((await db.query("SELECT 1 FROM pg_class WHERE relname = $1", [left])).rows).toEqual([]);
    expect(await server.kill("SIGTERM")).toBe(0);
    server = undefined;
  }, 120_000);
});
