import { describe, expect, it } from "vitest";
import { sweepOrphanFiles } from "../../files/orphan-sweep";
import { ownerWithProject } from "../../testing/fixtures";
import { apiSuite } from "../../testing/api-suite";

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

    await sweepOrphanFiles();
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
    const { deleted } = await sweepOrphanFiles();
    expect(deleted).toBeGreaterThanOrEqual(1);
    expect((await t.server.request(`/api/collections/_files/documents/${fileId}/`, as)).status).toBe(404);
    expect((await t.server.request(`/api/collections/_files/documents/${fileId}/content/`, as)).status).toBe(404);
    expect((await t.server.request("/api/info/", people)).body.status.files_size).toBe(0);
  });

  it("with delete_files on (the default) go with their document", async () => {
    const as = { project: t.owner.project, token: t.owner.token };
    const fileId = await attach(as, "notes", "n3", "gone with it");
    await t.server.request("/api/collections/notes/documents/n3/", { ...as, method: "DELETE" });
    expect((await t.server.request(`/api/collections/_files/documents/${fileId}/`, as)).status).toBe(404);
  });
});
