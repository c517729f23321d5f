import { describe, expect, it } from "vitest";
import { apiSuite } from "../../testing/api-suite";
import { ownerWithProject, opaqueBytes } from "../../testing/fixtures";
import { form } from "./files-helpers";

/** CONTRACT §2: at 80 % of a limit a notification is written and mailed once. */
const t = apiSuite();
const as = () => ({ project: t.owner.project, token: t.owner.token });

async function notifications(): Promise<{ subject: string }[]> {
  // The warning commits with the write that crossed 80 %: no waiting.
  const r = await t.server.request("/api/collections/_notification/documents/", as());
  return r.body.items.filter((n: { subject: string }) => /size at \d+ % of the limit/.test(n.subject));
}
const mailsToOwner = () => t.server.smtp.messages.filter((m) => m.to.includes(t.owner.email) && /size limit/.test(m.subject));

describe("limit warnings", () => {
  it("warns once at 80 % of data_size_limit, again only after falling back below it", async () => {
    const filler = { blob: "x".repeat(790) };
    await t.server.request(`/api/user/projects/${t.owner.project}/`, { session: t.owner.session, method: "PATCH", json: { settings: { data_size_limit: 1000 } } });
    expect((await t.server.request("/api/collections/w/documents/", { ...as(), json: { _id: "small" } })).status).toBe(201);
    expect(await notifications()).toEqual([]);
    expect((await t.server.request("/api/collections/w/documents/", { ...as(), json: { _id: "big", ...filler } })).status).toBe(201);
    const first = await notifications();
    expect(first).toHaveLength(1);
    expect(first[0].subject).toMatch(/^Data size at (8|9)\d % of the limit$/);
    const mail = await t.server.smtp.waitForMail((m) => m.to.includes(t.owner.email) && /data size limit/.test(m.subject));
    expect(mail.text).toContain("402");
    // More writes above 80 %: no second warning.
    await t.server.request("/api/collections/w/documents/", { ...as(), json: { _id: "more" } });
    expect(await notifications()).toHaveLength(1);
    expect(mailsToOwner()).toHaveLength(1);
    // Below 80 % and up again: a new warning.
    await t.server.request("/api/collections/w/documents/big/", { ...as(), method: "DELETE" });
    await t.server.request("/api/collections/w/documents/", { ...as(), json: { _id: "tiny" } });
    await t.server.request("/api/collections/w/documents/", { ...as(), json: { _id: "big2", ...filler } });
    expect(await notifications()).toHaveLength(2);
  });

  it("warns at 80 % of files_size_limit", async () => {
    await t.server.request(`/api/user/projects/${t.owner.project}/`, { session: t.owner.session, method: "PATCH", json: { settings: { data_size_limit: 0, files_size_limit: 2000 } } });
    const upload = await t.server.request("/api/collections/_files/documents/", { ...as(), body: form([["file", Buffer.alloc(1700, 65), "a.txt"]]) });
    expect(upload.status, upload.text).toBe(201);
    const all = await notifications();
    expect(all.some((n) => /^Files size at 8\d % of the limit$/.test(n.subject))).toBe(true);
  });

  it("a file replaced by a smaller one, with both limits set, warns of nothing (it added both sizes up)", async () => {
    const owner = await ownerWithProject(t.server);
    const mine = { project: owner.project, token: owner.token };
    await t.server.request(`/api/user/projects/${owner.project}/`, { session: owner.session, method: "PATCH", json: { settings: { files_size_limit: 100, data_size_limit: 100_000 } } });
    const created = await t.server.request("/api/collections/c/documents/", { ...mine, body: form([["_id", '"f1"'], ["bin", opaqueBytes(60), "a.bin"]]) });
    expect(created.status, created.text).toBe(201);
    for (const size of [50, 55, 50]) {
      const replaced = await t.server.request("/api/collections/c/documents/f1/", { ...mine, method: "PATCH", body: form([["bin", opaqueBytes(size), "b.bin"]]) });
      expect(replaced.status, replaced.text).toBe(200);
    }
    const listed = await t.server.request("/api/collections/_notification/documents/", mine);
    expect(listed.body.items.filter((n: { subject: string }) => /size at/.test(n.subject))).toEqual([]);
    // A real crossing still warns, once.
    const crossing = await t.server.request("/api/collections/c/documents/f1/", { ...mine, method: "PATCH", body: form([["bin", opaqueBytes(90), "c.bin"]]) });
    expect(crossing.status, crossing.text).toBe(200);
    const after = await t.server.request("/api/collections/_notification/documents/", mine);
    expect(after.body.items.map((n: { subject: string }) => n.subject).filter((s: string) => /size at/.test(s))).toEqual(["Files size at 90 % of the limit"]);
  });
});
