import { describe, expect, it, vi } from "vitest";
import { pool, runAsBackground } from "../../db/pool";
import { apiSuite } from "../../testing/api-suite";
import { ownerWithProject } from "../../testing/fixtures";
import { multipartBody, rawRequest } from "../../testing/raw-request";
import { PNG } from "./files-helpers";

// Small limits for this file's server, set before any module reads them (issue 17 item 4).
vi.hoisted(() => {
  process.env.ARCA_JSON_BODY_LIMIT = String(64 * 1024);
  process.env.ARCA_MAX_PARTS = "20";
  process.env.ARCA_MAX_FILES = "3";
  process.env.ARCA_STATEMENT_TIMEOUT_MS = "1000";
});

const t = apiSuite();
const docs = (collection: string) => `/api/collections/${collection}/documents/`;
const as = (extra: Record<string, unknown> = {}) => ({ project: t.owner.project, token: t.owner.token, ...extra });
const sendMultipart = (path: string, parts: Parameters<typeof multipartBody>[0]) => {
  const { body, contentType } = multipartBody(parts);
  return rawRequest(t.server.port, path, {
    method: "POST",
    body,
    headers: { "x-project": t.owner.project, authorization: `Token ${t.owner.token}`, "content-type": contentType },
  });
};
const fileCount = async () => (await t.db.query("SELECT count(*)::int AS n FROM files WHERE project_id = $1", [t.owner.project])).rows[0].n;

// PostgreSQL spends seconds compiling this (nested optional repeats), whatever the data.
const SLOW_REGEX = "(a?){100}".repeat(11);

describe("abuse: one limit each", () => {
  it("a JSON body past ARCA_JSON_BODY_LIMIT: 413", async () => {
    const res = await t.server.request(docs("big"), as({ json: { s: "x".repeat(70 * 1024) } }));
    expect(res.status).toBe(413);
    expect(res.body.message).toBe("Request body is too large");
  });

  it("multipart fields: one past the JSON limit, or several together: 413", async () => {
    const one = await sendMultipart(docs("big"), [{ name: "s", value: JSON.stringify("x".repeat(70 * 1024)) }]);
    expect(one.status, one.text).toBe(413);
    expect(one.body.message).toBe("Part s is too large");
    const chunk = JSON.stringify("y".repeat(30 * 1024));
    const together = await sendMultipart(docs("big"), [{ name: "a", value: chunk }, { name: "b", value: chunk }, { name: "c", value: chunk }]);
    expect(together.status, together.text).toBe(413);
    expect(together.body.message).toBe("Multipart fields are too large together");
    expect((await t.server.request(docs("big"), as())).status).toBe(404);
  });

  it("more parts than ARCA_MAX_PARTS, more files than ARCA_MAX_FILES: 400, nothing stored", async () => {
    const before = await fileCount();
    const parts = await sendMultipart(docs("many"), Array.from({ length: 25 }, (_, i) => ({ name: `f${i}`, value: String(i) })));
    expect(parts.status, parts.text).toBe(400);
    expect(parts.body.message).toBe("Multipart body has more than 20 parts");
    const twentyOne = await sendMultipart(docs("many"), Array.from({ length: 21 }, (_, i) => ({ name: `f${i}`, value: String(i) })));
    expect(twentyOne.status, twentyOne.text).toBe(400);
    const twenty = await sendMultipart(docs("many"), Array.from({ length: 20 }, (_, i) => ({ name: `f${i}`, value: String(i) })));
    expect(twenty.status, twenty.text).toBe(201);
    const files = await sendMultipart(docs("many"), Array.from({ length: 5 }, (_, i) => ({ name: `p${i}`, filename: `${i}.png`, type: "image/png", value: PNG })));
    expect(files.status, files.text).toBe(400);
    expect(files.body.message).toBe("Multipart body has more than 3 files");
    expect(await fileCount()).toBe(before);
    const ok = await sendMultipart(docs("many"), Array.from({ length: 3 }, (_, i) => ({ name: `p${i}`, filename: `${i}.png`, type: "image/png", value: PNG })));
    expect(ok.status, ok.text).toBe(201);
    expect(await fileCount()).toBe(before + 3);
  });

  it("a refused multipart body with a large file part in flight never takes the server down", async () => {
    const big = Buffer.alloc(400 * 1024, 7);
    const cases: [string, Record<string, string>, Parameters<typeof multipartBody>[0]][] = [
      // A route that takes no files, without credentials.
      ["/api/user/", {}, [{ name: "email", value: '"a@b.test"' }, { name: "f", filename: "big.bin", type: "application/octet-stream", value: big }]],
      ["/api/collections/_tokens/documents/", { "x-project": t.owner.project, authorization: `Token ${t.owner.token}` }, [{ name: "f", filename: "big.bin", type: "application/octet-stream", value: big }]],
      // A document write whose bad part comes before the file.
      [docs("crash"), { "x-project": t.owner.project, authorization: `Token ${t.owner.token}` }, [{ name: "bad", value: "not json" }, { name: "f", filename: "big.bin", type: "application/octet-stream", value: big }]],
    ];
    for (const [path, headers, parts] of cases) {
      const { body, contentType } = multipartBody(parts);
      const res = await rawRequest(t.server.port, path, { method: "POST", body, headers: { ...headers, "content-type": contentType } });
      expect(res.status, `${path} ${res.text}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await t.server.request(docs("crash"), as())).status).toBe(404);
  });

  it("a query past ARCA_STATEMENT_TIMEOUT_MS: 503 with Retry-After, and the server carries on", async () => {
    await t.server.request(docs("slow"), as({ json: { s: "abc" } }));
    const res = await t.server.request(docs("slow"), as({ action: "find", json: { filter: { s: { $regex: SLOW_REGEX, $options: "i" } } } }));
    expect(res.status, res.text).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.body.message).toMatch(/time limit/);
    expect((await t.server.request(docs("slow"), as())).status).toBe(200);
  });

  it("background work runs on its own pool, without the API's statement timeout", async () => {
    const api = await pool().query("SELECT pg_sleep(1.3)").catch((error: { code?: string }) => error.code);
    expect(api).toBe("57014");
    const background = await runAsBackground(() => pool().query("SELECT pg_sleep(1.3) AS slept"));
    expect(background.rows).toEqual([{ slept: "" }]);
  });

  it("an unrelated project's simple GET answers while another project runs the worst filter it can", async () => {
    const other = await ownerWithProject(t.server);
    await t.server.request(docs("calm"), { project: other.project, token: other.token, json: { _id: "x" } });
    const finished: string[] = [];
    const slow = Promise.all(
      Array.from({ length: 4 }, () =>
        t.server.request(docs("slow"), as({ action: "find", json: { filter: { $or: [{ s: { $regex: SLOW_REGEX, $options: "i" } }, { s: { $regex: SLOW_REGEX } }] } } })),
      ),
    ).then((answers) => {
      finished.push("slow");
      return answers;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const calm = await t.server.request(`${docs("calm")}x/`, { project: other.project, token: other.token });
    finished.push("calm");
    expect(calm.status).toBe(200);
    const answers = await slow;
    expect(answers.map((a) => a.status)).toEqual([503, 503, 503, 503]);
    expect(finished).toEqual(["calm", "slow"]);
  });
});
