import { describe, expect, it } from "vitest";
import { apiSuite } from "../../testing/api-suite";
import { createProject, createToken, ownerWithProject } from "../../testing/fixtures";

/**
 * Concurrent changes of different keys of one record, and writes racing a project's deletion
 * (audit round 8): every acknowledged change stays, and a write that loses the race is a 404,
 * never a 500 or a trace left for a new project of the same id.
 */
const t = apiSuite();

describe("concurrent PATCHes of different keys", () => {
  it("of a token: a deactivation and a rename both take, every round", async () => {
    const base = "/api/collections/_tokens/documents/";
    const as = { project: t.owner.project, token: t.owner.token };
    for (let round = 0; round < 8; round++) {
      const id = `race-${round}`;
      expect((await t.server.request(base, { ...as, json: { _id: id, name: "before" } })).status).toBe(201);
      const answers = await Promise.all([
        t.server.request(`${base}${id}/`, { ...as, method: "PATCH", json: { is_active: false } }),
        t.server.request(`${base}${id}/`, { ...as, method: "PATCH", json: { name: "after" } }),
      ]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect((await t.server.request(`${base}${id}/`, as)).body).toMatchObject({ name: "after", is_active: false });
    }
  });

  it("of a project: a rename and a settings change both take, every round", async () => {
    const path = `/api/user/projects/${t.owner.project}/`;
    for (let round = 0; round < 8; round++) {
      const answers = await Promise.all([
        t.server.request(path, { session: t.owner.session, method: "PATCH", json: { name: `Name ${round}` } }),
        t.server.request(path, { session: t.owner.session, method: "PATCH", json: { settings: { files_size_limit: 1000 + round } } }),
      ]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      const project = (await t.server.request(path, { session: t.owner.session })).body;
      expect(project.name).toBe(`Name ${round}`);
      expect(project.settings.files_size_limit).toBe(1000 + round);
    }
  });
});

describe("writes racing a project's deletion", () => {
  it("lose with 404, and a new project of the same id starts with no change events of the old one", async () => {
    const owner = await ownerWithProject(t.server);
    const as = { project: owner.project, token: owner.token };
    await t.server.request("/api/collections/notes/documents/", { ...as, json: { _id: "seed" } });
    const writes = Array.from({ length: 16 }, (_, i) => t.server.request("/api/collections/notes/documents/", { ...as, json: { _id: `w${i}` } }));
    const deletion = t.server.request(`/api/user/projects/${owner.project}/`, { session: owner.session, method: "DELETE" });
    const statuses = (await Promise.all(writes)).map((r) => r.status);
    expect((await deletion).status).toBe(204);
    for (const status of statuses) expect([201, 401, 404]).toContain(status);
    await createProject(t.server, owner.session, owner.project);
    await createToken(t.server, owner.session, owner.project);
    const { rows } = await t.db.query("SELECT count(*)::int AS n FROM document_events WHERE project_id = $1", [owner.project]);
    expect(rows[0].n).toBe(0);
  });
});
