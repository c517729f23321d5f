import { runAsBackground } from "../../db/pool";
import { describe, expect, it } from "vitest";
import { markUnreferencedFiles, sweepOrphanFiles } from "../../files/orphan-sweep";
import { pruneOutbox } from "../../outbox/outbox-maintenance";
import { ownerWithProject } from "../../testing/fixtures";
import { apiSuite } from "../../testing/api-suite";
import { blobFiles, until } from "./files-helpers";

/**
 * `settings.delete_files` off: deleting a document or collection keeps its files, marked
 * orphaned, and `settings.orphan_files_ttl` decides when the sweep removes them.
 */
const t = apiSuite();

async function projectKeepingFiles(ttl: string) {
  const owner = await ownerWithProject(t.server);
  const patch = await t.server.request(`/api/user/projects/${owner.project}/`, {
    method: "PATCH",
    session: owner.session,
    json: { settings: { delete_files: false, orphan_files_ttl: ttl } },
  });
  expect(patch.status).toBe(200);
  return { owner, as: { project: owner.project, token: owner.token }, people: { project: owner.project, session: owner.session } };
}

async function attach(as: { project: string; token: string }, collection: string, id: string, text: string): Promise<string> {
  const form = new FormData();
  form.append("_id", JSON.stringify(id));
  form.append("attachment", new Blob([text], { type: "text/plain" }), `${id}.txt`);
  const created = await t.server.request(`/api/collections/${collection}/documents/`, { ...as, body: form });
  expect(created.status, created.text).toBe(201);
  return created.body.attachment._id;
}

describe("files of deleted documents with delete_files off", () => {
  it("stay readable and counted while the TTL is unset", async () => {
    const { as, people } = await projectKeepingFiles("");
    const fileId = await attach(as, "notes", "n1", "kept bytes");
    const sizeBefore = (await t.server.request("/api/info/", people)).body.status.files_size;
    expect((await t.server.request("/api/collections/notes/documents/n1/", { ...as, method: "DELETE" })).status).toBe(204);

    const record = await t.server.request(`/api/collections/_files/documents/${fileId}/`, as);
    expect(record.status).toBe(200);
    expect(record.body.document_id).toBe("n1");
    expect((await t.server.request(`/api/collections/_files/documents/${fileId}/content/`, as)).text).toBe("kept bytes");
    expect((await t.server.request("/api/info/", people)).body.status.files_size).toBe(sizeBefore);

    await runAsBackground(() => sweepOrphanFiles());
    expect((await t.server.request(`/api/collections/_files/documents/${fileId}/`, as)).status).toBe(200);
    const { rows } = await t.db.query("SELECT orphaned_at FROM files WHERE project_id = $1 AND id = $2", [as.project, fileId]);
    expect(rows[0].orphaned_at).not.toBeNull();
  });

  it("are swept once orphaned longer than the TTL, with their bytes and size", async () => {
    const { as, people } = await projectKeepingFiles("1s");
    const fileId = await attach(as, "notes", "n2", "short-lived");
    await t.server.request("/api/collections/notes/", { ...as, method: "DELETE" });
    expect((await t.server.request(`/api/collections/_files/documents/${fileId}/`, as)).status).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, 1100));
    const { deleted } = await runAsBackground(() => sweepOrphanFiles());
    expect(deleted).toBeGreaterThanOrEqual(1);
    expect((await t.server.request(`/api/collections/_files/documents/${fileId}/`, as)).status).toBe(404);
    expect((await t.server.request(`/api/collections/_files/documents/${fileId}/content/`, as)).status).toBe(404);
    expect((await t.server.request("/api/info/", people)).body.status.files_size).toBe(0);
  });

  it("another project's out-of-range TTL (stored before durations had a limit) stops neither the sweep nor the pruning", async () => {
    const absurd = await projectKeepingFiles("");
    await attach(absurd.as, "notes", "x1", "kept forever");
    await t.server.request("/api/collections/notes/documents/x1/", { ...absurd.as, method: "DELETE" });
    // Written past the API, which now refuses it (422): once it made every pass fail, for every project.
    await t.db.query(
      `UPDATE projects SET settings = settings || '{"orphan_files_ttl": "100000000000000000000s", "events_ttl": "3000000000h", "hooks_history_ttl": "3000000000h"}'::jsonb WHERE id = $1`,
      [absurd.as.project],
    );
    const { as } = await projectKeepingFiles("1s");
    const fileId = await attach(as, "notes", "x2", "short-lived");
    await t.server.request("/api/collections/notes/documents/x2/", { ...as, method: "DELETE" });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await runAsBackground(() => pruneOutbox());
    const { deleted } = await runAsBackground(() => sweepOrphanFiles());
    expect(deleted).toBeGreaterThanOrEqual(1);
    expect((await t.server.request(`/api/collections/_files/documents/${fileId}/`, as)).status).toBe(404);
  });

  it("come back with their document: a restore (PUT of the old document, or an import) holding its record re-attaches the file", async () => {
    const { as } = await projectKeepingFiles("");
    const fileId = await attach(as, "notes", "r1", "restored bytes");
    const saved = (await t.server.request("/api/collections/notes/documents/r1/", as)).body;
    expect((await t.server.request("/api/collections/notes/documents/r1/", { ...as, method: "DELETE" })).status).toBe(204);
    // Another document cannot take it.
    const thief = await t.server.request("/api/collections/notes/documents/r2/", { ...as, method: "PUT", json: { attachment: saved.attachment } });
    expect(thief.status, thief.text).toBe(422);
    const restored = await t.server.request("/api/collections/notes/documents/r1/", { ...as, method: "PUT", json: saved });
    expect(restored.status, restored.text).toBe(201);
    expect((await t.server.request("/api/collections/notes/documents/r1/attachment/content/", as)).text).toBe("restored bytes");
    await runAsBackground(() => markUnreferencedFiles());
    const { rows } = await t.db.query("SELECT orphaned_at FROM files WHERE project_id = $1 AND id = $2", [as.project, fileId]);
    expect(rows[0].orphaned_at).toBeNull();
    // And by import, after another delete.
    await t.server.request("/api/collections/notes/documents/r1/", { ...as, method: "DELETE" });
    const imported = await t.server.request("/api/collections/notes/import/?format=jsonl&mode=upsert", { ...as, method: "POST", body: `${JSON.stringify(saved)}\n`, headers: { "content-type": "application/x-ndjson" } });
    expect(imported.body, imported.text).toMatchObject({ created: 1, failed: 0 });
    expect((await t.server.request(`/api/collections/_files/documents/${fileId}/`, as)).body.document_id).toBe("r1");
  });

  it("with delete_files on (the default) go with their document", async () => {
    const as = { project: t.owner.project, token: t.owner.token };
    const fileId = await attach(as, "notes", "n3", "gone with it");
    await t.server.request("/api/collections/notes/documents/n3/", { ...as, method: "DELETE" });
    expect((await t.server.request(`/api/collections/_files/documents/${fileId}/`, as)).status).toBe(404);
  });

  it("go right after the project that held them is deleted (they waited for the periodic sweep)", async () => {
    const owner = await ownerWithProject(t.server);
    await attach({ project: owner.project, token: owner.token }, "notes", "n1", "project bytes");
    const ofProject = async () => (await blobFiles(t.server)).blobs.filter((key) => key.includes(owner.project));
    expect(await ofProject()).toHaveLength(1);
    expect((await t.server.request(`/api/user/projects/${owner.project}/`, { method: "DELETE", session: owner.session })).status).toBe(204);
    await until(async () => (await ofProject()).length === 0, 5000);
  });
});

// 10,000 files per test: minutes under a full parallel suite on 2 cores (and once more on S3).
describe("the orphan sweep with many files on one document", { timeout: 120_000 }, () => {
  const MANY = 10_000;

  /** Gives document `id` (already holding one uploaded file) MANY more file records, as rows and in its JSON. */
  async function holdMany(project: string, collection: string, id: string, tag: string): Promise<number> {
    const { rows } = await t.db.query(
      `WITH f AS (
         INSERT INTO files (project_id, id, collection_id, document_id, property, name, content_type, size, md5, blob_key)
         SELECT $1, $4 || '-' || i, $2, $3, 'many', 'f' || i || '.txt', 'text/plain', 3, md5('x'), $1 || '/none-' || $4 || '-' || i
         FROM generate_series(1, ${MANY}) i RETURNING *
       ), doc AS (
         UPDATE documents SET data = data || jsonb_build_object('many', (SELECT jsonb_agg(jsonb_build_object(
           '_id', id, 'collection_id', collection_id, 'content_type', content_type, 'date_created', '2026-01-01T00:00:00.00Z',
           'document_id', document_id, 'last_access', '2026-01-01T00:00:00.00Z', 'md5', md5, 'name', name, 'size', size)) FROM f))
         WHERE project_id = $1 AND collection_id = $2 AND id = $3 RETURNING 1
       ), cd AS (
         INSERT INTO counter_deltas (project_id, collection_id, files_size) SELECT $1, '', sum(size) FROM f
       )
       SELECT count(*)::int AS n FROM f`,
      [project, collection, id, tag],
    );
    return rows[0].n;
  }

  const filesSize = async (people: { project: string; session: string }) => (await t.server.request("/api/info/", people)).body.status.files_size;
  const countFiles = async (project: string, where = "TRUE") =>
    (await t.db.query(`SELECT count(*)::int AS n FROM files WHERE project_id = $1 AND ${where}`, [project])).rows[0].n;

  it(`leaves ${MANY} files held by their document alone, then sweeps them in batches once it is gone`, async () => {
    const { as, people } = await projectKeepingFiles("1s");
    await attach(as, "notes", "big", "first");
    expect(await holdMany(as.project, "notes", "big", "big")).toBe(MANY);
    expect(await filesSize(people)).toBe(5 + 3 * MANY);

    // The safety net reads the document once, not once per file: nothing of it is an orphan.
    await runAsBackground(() => markUnreferencedFiles());
    expect(await countFiles(as.project, "orphaned_at IS NOT NULL")).toBe(0);
    expect((await runAsBackground(() => sweepOrphanFiles())).deleted).toBe(0);

    // Deleting the document marks its files in the same transaction; the sweep waits for the TTL.
    expect((await t.server.request("/api/collections/notes/documents/big/", { ...as, method: "DELETE" })).status).toBe(204);
    expect(await countFiles(as.project, "orphaned_at IS NOT NULL")).toBe(MANY + 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // Other test servers on this database sweep too (SKIP LOCKED shares the rows): assert the end state.
    await runAsBackground(() => sweepOrphanFiles({ batch: 1000 }));
    expect(await countFiles(as.project)).toBe(0);
    expect(await filesSize(people)).toBe(0);
  });

  it("unmarks instead of deleting a marked file its document holds again", async () => {
    const { as } = await projectKeepingFiles("1s");
    const fileId = await attach(as, "notes", "back", "returns");
    await holdMany(as.project, "notes", "back", "back");
    await t.db.query("UPDATE files SET orphaned_at = now() - interval '1 hour' WHERE project_id = $1", [as.project]);
    const swept = await runAsBackground(() => sweepOrphanFiles({ batch: 3000 }));
    expect(swept.deleted).toBe(0);
    // Rows another test server's sweep holds (SKIP LOCKED) are unmarked by that sweep: the end state.
    await expect.poll(() => countFiles(as.project, "orphaned_at IS NOT NULL"), { timeout: 60_000 }).toBe(0);
    expect(await countFiles(as.project)).toBe(MANY + 1);
    expect((await t.server.request(`/api/collections/_files/documents/${fileId}/content/`, as)).text).toBe("returns");
  });

  it("the safety net marks files a hand edit took out of their document, and two sweeps never take the same row", async () => {
    // A TTL no background sweep reaches while the test runs (under load it took over a minute,
    // and a "1s" TTL let a background sweep delete the marked files before they were counted).
    const { as, people } = await projectKeepingFiles("1h");
    await attach(as, "notes", "edited", "stays");
    await holdMany(as.project, "notes", "edited", "edited");
    await t.db.query("UPDATE documents SET data = data - 'many' WHERE project_id = $1 AND id = 'edited'", [as.project]);
    await runAsBackground(() => markUnreferencedFiles());
    expect(await countFiles(as.project, "orphaned_at IS NOT NULL")).toBe(MANY);
    await t.db.query("UPDATE files SET orphaned_at = now() - interval '2 hours' WHERE project_id = $1 AND orphaned_at IS NOT NULL", [as.project]);

    const [a, b] = await Promise.all([runAsBackground(() => sweepOrphanFiles({ batch: 500 })), runAsBackground(() => sweepOrphanFiles({ batch: 500 }))]);
    // Each row deleted once: never more than there were (other servers' sweeps may take some).
    expect(a.deleted + b.deleted).toBeLessThanOrEqual(MANY);
    expect(await countFiles(as.project)).toBe(1);
    expect(await filesSize(people)).toBe(5);
  });
});
