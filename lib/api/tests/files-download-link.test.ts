import { encode } from "next-auth/jwt";
import { beforeAll, describe, expect, it } from "vitest";
import { apiSuite } from "../../testing/api-suite";
import { form, PNG } from "./files-helpers";

/**
 * Streamed downloads from the dashboard (issue 14): a download is a navigation to the content URL
 * on the bare host, which cannot carry X-Project, so content paths take `?project=` (like the change
 * feed) and the dashboard's cookie authorizes them under the CSRF rule of CONTRACT §1. Reached that
 * way the bytes are on the dashboard's origin, so they always leave as an attachment, nosniff,
 * under `Content-Security-Policy: sandbox`, whatever their type.
 */
const t = apiSuite();
let cookie: string;
let origin: string;
let pngId: string;
let pdfId: string;
const HTML = "<!doctype html><script>alert(document.cookie)</script>";
const PDF = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");

beforeAll(async () => {
  const name = "authjs.session-token";
  cookie = `${name}=${await encode({ token: { sessionId: t.owner.session }, secret: process.env.ARCA_SECRET!, salt: name })}`;
  origin = `http://${new URL(t.server.url).host}`;
  const upload = async (value: string | Buffer, fileName: string) => {
    const res = await t.server.request("/api/collections/_files/documents/", { project: t.owner.project, token: t.owner.token, body: form([["file", value, fileName]]) });
    expect(res.status).toBe(201);
    return res.body._id as string;
  };
  pngId = await upload(PNG, "Résumé photo.png");
  pdfId = await upload(PDF, "report.pdf");
  const collection = await t.server.request("/api/collections/", {
    project: t.owner.project,
    token: t.owner.token,
    json: { _id: "books", schema: { properties: { title: { type: "string" }, cover: { type: "file" } } } },
  });
  expect(collection.status).toBe(201);
  const doc = await t.server.request("/api/collections/books/documents/", {
    project: t.owner.project,
    token: t.owner.token,
    body: form([["_id", '"b1"'], ["cover", HTML, "page.html"]]),
  });
  expect(doc.status).toBe(201);
});

const filesContent = (id: string, query: string) => `/api/collections/_files/documents/${id}/content/?${query}`;
const propertyContent = (query: string) => `/api/collections/books/documents/b1/cover/content/?${query}`;

describe("content by ?project= on the bare host", () => {
  it("the dashboard's cookie downloads a _files record: attachment with the name, nosniff, sandbox", async () => {
    const res = await t.server.request(filesContent(pngId, `project=${t.owner.project}`), { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="Resume photo.png"; filename*=UTF-8''R%C3%A9sum%C3%A9%20photo.png`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toBe("sandbox");
  });

  it("a navigation from the dashboard's page (Sec-Fetch-Site: same-origin, or its Origin) is authorized", async () => {
    const navigations: Record<string, string>[] = [{ cookie, "sec-fetch-site": "same-origin", "sec-fetch-mode": "navigate" }, { cookie, origin }];
    for (const headers of navigations) {
      const res = await t.server.request(filesContent(pngId, `project=${t.owner.project}`), { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-length")).toBe(String(PNG.length));
    }
  });

  it("a file property's content: the bytes, as an attachment even for HTML", async () => {
    const res = await t.server.request(propertyContent(`project=${t.owner.project}`), { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.text).toBe(HTML);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="page.html"; filename*=UTF-8''page.html`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toBe("sandbox");
  });

  it("PDF, inline and unsandboxed with X-Project, is an attachment under the sandbox here", async () => {
    const viaHeader = await t.server.request(filesContent(pdfId, ""), { project: t.owner.project, headers: { cookie } });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.headers.get("content-disposition")).toBe(`inline; filename="report.pdf"; filename*=UTF-8''report.pdf`);
    expect(viaHeader.headers.get("content-security-policy") ?? "").not.toContain("sandbox");
    const viaQuery = await t.server.request(filesContent(pdfId, `project=${t.owner.project}`), { headers: { cookie } });
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.headers.get("content-disposition")).toBe(`attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
    expect(viaQuery.headers.get("content-security-policy")).toBe("sandbox");
  });

  it("a token still works with ?project= (header or ?token=)", async () => {
    const byHeader = await t.server.request(filesContent(pngId, `project=${t.owner.project}`), { token: t.owner.token });
    expect(byHeader.status).toBe(200);
    expect(byHeader.headers.get("content-disposition")).toMatch(/^attachment;/);
    const byQuery = await t.server.request(propertyContent(`project=${t.owner.project}&token=${encodeURIComponent(t.owner.token)}`));
    expect(byQuery.status).toBe(200);
    expect(byQuery.text).toBe(HTML);
    // HEAD answers as GET does (it named the project the same way).
    const head = await t.server.request(propertyContent(`project=${t.owner.project}&token=${encodeURIComponent(t.owner.token)}`), { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(HTML)));
    const exportHead = await t.server.request(`/api/collections/books/export/?project=${t.owner.project}&token=${encodeURIComponent(t.owner.token)}`, { method: "HEAD" });
    expect(exportHead.status).toBe(200);
  });

  it("refuses the cookie when another site sends the request (CONTRACT §1, CSRF): 401", async () => {
    const refused = { status: 401, body: { message: "Not authorized" } };
    const path = filesContent(pngId, `project=${t.owner.project}`);
    expect(await t.server.request(path, { headers: { cookie, origin: "http://evil.example" } })).toMatchObject(refused);
    expect(await t.server.request(path, { headers: { cookie, "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" } })).toMatchObject(refused);
    expect(await t.server.request(propertyContent(`project=${t.owner.project}`), { headers: { cookie, origin: "null" } })).toMatchObject(refused);
  });

  it("without credentials: 401; an unknown project: 404; another project's file: 404", async () => {
    expect(await t.server.request(filesContent(pngId, `project=${t.owner.project}`))).toMatchObject({ status: 401, body: { message: "Not authorized" } });
    expect(await t.server.request(filesContent(pngId, "project=no-such-project"), { headers: { cookie } })).toMatchObject({
      status: 404,
      body: { message: "Project not found." },
    });
    const other = await t.server.request("/api/user/projects/other-dl/", { session: t.owner.session, json: { name: "Other" } });
    expect(other.status).toBe(201);
    expect(await t.server.request(filesContent(pngId, "project=other-dl"), { headers: { cookie } })).toMatchObject({
      status: 404,
      body: { message: "Document not found." },
    });
  });

  it("only content paths and the feed take ?project=: a document or a list does not", async () => {
    const doc = await t.server.request(`/api/collections/books/documents/b1/?project=${t.owner.project}`, { headers: { cookie } });
    expect(doc).toMatchObject({ status: 404, body: { message: "Project not found." } });
    const record = await t.server.request(`/api/collections/_files/documents/${pngId}/?project=${t.owner.project}`, { headers: { cookie } });
    expect(record.status).toBe(404);
    // An unsafe method on a content path does not take it either.
    const put = await t.server.request(filesContent(pngId, `project=${t.owner.project}`), { method: "DELETE", headers: { cookie, origin } });
    expect(put).toMatchObject({ status: 404, body: { message: "Project not found." } });
  });

  it("X-Project wins over ?project=, and keeps the inline answer", async () => {
    const res = await t.server.request(filesContent(pngId, "project=no-such-project"), { project: t.owner.project, headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(/^inline;/);
  });

  it("ranges still work on a download (a resumed download)", async () => {
    const res = await t.server.request(filesContent(pngId, `project=${t.owner.project}`), { headers: { cookie, range: "bytes=0-7" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe(`bytes 0-7/${PNG.length}`);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment;/);
  });
});
