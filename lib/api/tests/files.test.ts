import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { opaqueBytes, ownerWithProject } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/test-server";
import { blobFiles, closeDb, ELF, fileRows, filesSize, form, getBytes, pendingMarkers, PNG, sumOfSizes, until, WASM } from "./files-helpers";

let server: TestServer;
let project: string;
let token: string;
const FILES = "/api/collections/_files/documents";

beforeAll(async () => {
  server = await startTestServer();
  ({ project, token } = await ownerWithProject(server));
});
afterAll(async () => {
  await closeDb();
  await server.close();
});

const upload = (body: FormData, path = `${FILES}/`, method = "POST") => server.request(path, { project, token, method, body });

describe("direct upload into _files and download", () => {
  const bytes = opaqueBytes(10_000);
  let id: string;

  it("stores a file and answers its record with exactly nine keys", async () => {
    const before = await filesSize(project);
    const res = await upload(form([["file", bytes, "data.bin"]]));
    expect(res.status, res.text).toBe(201);
    id = res.body._id;
    expect(Object.keys(res.body).sort()).toEqual(["_id", "collection_id", "content_type", "date_created", "document_id", "last_access", "md5", "name", "size"]);
    expect(res.body).toMatchObject({ collection_id: "_files", document_id: "", name: "data.bin", size: 10_000, content_type: "application/octet-stream" });
    expect(res.body.md5).toBe(createHash("md5").update(bytes).digest("hex"));
    expect(res.body.date_created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{2}Z$/);
    expect(res.body.last_access).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{2}Z$/);
    expect(await filesSize(project)).toBe(before + 10_000);
    const read = await server.request(`${FILES}/${id}/`, { project, token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    // fields / fields_exclude as on any document read.
    expect((await server.request(`${FILES}/${id}/?fields=name,size`, { project, token })).body).toEqual({ _id: id, name: "data.bin", size: 10_000 });
    const without = await server.request(`${FILES}/${id}/?fields_exclude=md5,last_access`, { project, token });
    expect(Object.keys(without.body).sort()).toEqual(["_id", "collection_id", "content_type", "date_created", "document_id", "name", "size"]);
  });

  it("an upload that is not multipart: 415 for another media type (as multipart to a JSON route), 400 with none", async () => {
    const message = "Upload a file as multipart/form-data with a part named file";
    for (const method of ["POST", "PUT"]) {
      const json = await server.request(`${FILES}/mt1/`, { project, token, method, json: { a: 1 } });
      expect(json, method).toMatchObject({ status: 415, body: { message } });
    }
    const bare = await server.request(`${FILES}/`, { project, token, method: "POST" });
    expect(bare).toMatchObject({ status: 400, body: { message } });
    expect((await server.request(`${FILES}/mt1/`, { project, token })).status).toBe(404);
  });

  it("two parts named file: 400, nothing stored", async () => {
    const before = await filesSize(project);
    const blobs = (await blobFiles(server)).blobs.length;
    const twice = await upload(form([["file", "one", "one.txt"], ["file", "two", "two.txt"]]), `${FILES}/twice/`, "PUT");
    expect(twice).toMatchObject({ status: 400, body: { message: "Part file is repeated: a _files record holds one file" } });
    expect((await server.request(`${FILES}/twice/`, { project, token })).status).toBe(404);
    expect(await filesSize(project)).toBe(before);
    await until(async () => (await blobFiles(server)).blobs.length === blobs);
  });

  it("concurrent uploads of one new id: PUT gives one 201 and 200s, POST one 201 and 409s with the usual message", async () => {
    const puts = await Promise.all(Array.from({ length: 8 }, (_, i) => upload(form([["file", opaqueBytes(50 + i), `p${i}.bin`]]), `${FILES}/race-put/`, "PUT")));
    expect(puts.map((r) => `${r.status} ${r.status === 409 ? r.text : ""}`).sort()).toEqual(["200 ", "200 ", "200 ", "200 ", "200 ", "200 ", "200 ", "201 "]);
    const posts = await Promise.all(Array.from({ length: 8 }, (_, i) => upload(form([["file", opaqueBytes(50 + i), `q${i}.bin`]]), `${FILES}/race-post/`)));
    expect(posts.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of posts.filter((r) => r.status === 409)) expect(r.body).toEqual({ message: "Document with this _id already exists." });
    expect(await filesSize(project)).toBe(await sumOfSizes(project));
  });

  it("a record: PUT with another _id than the path's is 422 naming _id; PATCH is 405 (a record changes only by uploading)", async () => {
    const mismatch = await upload(form([["_id", '"other"'], ["file", opaqueBytes(10), "m.bin"]]), `${FILES}/mm1/`, "PUT");
    expect(mismatch.status, mismatch.text).toBe(422);
    expect(mismatch.body.errors).toEqual([{ property: "_id", message: "must match the id in the path" }]);
    const patched = await server.request(`${FILES}/mm1/`, { project, token, method: "PATCH", json: { name: "x" } });
    expect(patched.status).toBe(405);
    expect(patched.headers.get("allow")).toBe("GET, HEAD, POST, PUT, DELETE, OPTIONS");
  });

  it("reads a record's properties by path; a missing one is 404", async () => {
    expect((await server.request(`${FILES}/${id}/name/`, { project, token })).body).toBe("data.bin");
    expect((await server.request(`${FILES}/${id}/size`, { project, token })).body).toBe(10_000);
    const missing = await server.request(`${FILES}/${id}/nothing/`, { project, token });
    expect(missing).toMatchObject({ status: 404, body: { message: "Document property not found." } });
    expect((await server.request(`${FILES}/no-such-file/name/`, { project, token })).status).toBe(404);
  });

  it("downloads the bytes with Content-Length, ETag, Last-Modified, nosniff", async () => {
    const res = await getBytes(server, `${FILES}/${id}/content/`, project, token);
    expect(res.status).toBe(200);
    expect(res.body.equals(bytes)).toBe(true);
    expect(res.headers.get("content-length")).toBe("10000");
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(res.headers.get("etag")).toBe(`"${createHash("md5").update(bytes).digest("hex")}"`);
    expect(res.headers.get("last-modified")).toMatch(/GMT$/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="data.bin"; filename*=UTF-8''data.bin`);
    expect(res.headers.get("content-security-policy")).toBe("sandbox");
  });

  it("HEAD gives the headers and no body", async () => {
    const res = await getBytes(server, `${FILES}/${id}/content/`, project, token, {}, "HEAD");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe("10000");
    expect(res.body.length).toBe(0);
    const ranged = await getBytes(server, `${FILES}/${id}/content/`, project, token, { range: "bytes=0-9" }, "HEAD");
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get("content-length")).toBe("10");
  });

  it.each([
    ["bytes=0-99", 0, 99],
    ["bytes=-500", 9500, 9999],
    ["bytes=9000-", 9000, 9999],
    ["bytes=9990-20000", 9990, 9999],
  ])("single range %s", async (range, start, end) => {
    const res = await getBytes(server, `${FILES}/${id}/content/`, project, token, { range });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe(`bytes ${start}-${end}/10000`);
    expect(res.headers.get("content-length")).toBe(String(end - start + 1));
    expect(res.body.equals(bytes.subarray(start, end + 1))).toBe(true);
  });

  it("several ranges: multipart/byteranges, parsed and byte-checked", async () => {
    const res = await getBytes(server, `${FILES}/${id}/content/`, project, token, { range: "bytes=0-9, 5000-5099, -10" });
    expect(res.status).toBe(206);
    const type = res.headers.get("content-type")!;
    expect(type).toMatch(/^multipart\/byteranges; boundary=/);
    expect(Number(res.headers.get("content-length"))).toBe(res.body.length);
    const boundary = type.split("boundary=")[1];
    const text = res.body.toString("latin1");
    const parts = text.split(`--${boundary}`).slice(1, -1);
    expect(parts).toHaveLength(3);
    const expected = [[0, 9], [5000, 5099], [9990, 9999]];
    parts.forEach((part, i) => {
      const [head, ...rest] = part.split("\r\n\r\n");
      const [start, end] = expected[i];
      expect(head).toContain(`Content-Range: bytes ${start}-${end}/10000`);
      const data = Buffer.from(rest.join("\r\n\r\n"), "latin1").subarray(0, end - start + 1);
      expect(data.equals(bytes.subarray(start, end + 1))).toBe(true);
    });
    expect(text.endsWith(`--${boundary}--\r\n`)).toBe(true);
  });

  it.each([
    ["adjacent", "bytes=0-4,5-9", [[0, 4], [5, 9]]],
    ["overlapping, coalesced into one part", "bytes=0-9,5-14", [[0, 14]]],
  ])("several ranges, %s: still multipart/byteranges (CONTRACT §6)", async (_name, range, expected) => {
    const res = await getBytes(server, `${FILES}/${id}/content/`, project, token, { range });
    expect(res.status).toBe(206);
    const type = res.headers.get("content-type")!;
    expect(type).toMatch(/^multipart\/byteranges; boundary=/);
    expect(res.headers.get("content-range")).toBeNull();
    const parts = res.body.toString("latin1").split(`--${type.split("boundary=")[1]}`).slice(1, -1);
    expect(parts.map((part) => /Content-Range: bytes (\d+)-(\d+)\/10000/.exec(part)!.slice(1).map(Number))).toEqual(expected);
  });

  it("unsatisfiable: 416 with bytes */size; malformed: 200 full", async () => {
    const res = await getBytes(server, `${FILES}/${id}/content/`, project, token, { range: "bytes=20000-" });
    expect(res.status).toBe(416);
    expect(res.headers.get("content-range")).toBe("bytes */10000");
    expect(JSON.parse(res.body.toString())).toEqual({ message: "Range not satisfiable" });
    const bad = await getBytes(server, `${FILES}/${id}/content/`, project, token, { range: "bytes=abc" });
    expect(bad.status).toBe(200);
    expect(bad.body.length).toBe(10000);
  });

  it("If-None-Match: 304; If-Range stale: 200 full; If-Range matching: 206", async () => {
    const etag = `"${createHash("md5").update(bytes).digest("hex")}"`;
    const notModified = await getBytes(server, `${FILES}/${id}/content/`, project, token, { "if-none-match": etag });
    expect(notModified.status).toBe(304);
    expect(notModified.body.length).toBe(0);
    const stale = await getBytes(server, `${FILES}/${id}/content/`, project, token, { range: "bytes=0-9", "if-range": '"0000"' });
    expect(stale.status).toBe(200);
    expect(stale.body.length).toBe(10000);
    const fresh = await getBytes(server, `${FILES}/${id}/content/`, project, token, { range: "bytes=0-9", "if-range": etag });
    expect(fresh.status).toBe(206);
  });

  it("?token= works for content links", async () => {
    const res = await fetch(`${server.url}${FILES}/${id}/content/?token=${token}`, { headers: { "x-project": project } });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("content reads update last_access through the queue", async () => {
    const before = (await server.request(`${FILES}/${id}/`, { project, token })).body.last_access;
    await new Promise((r) => setTimeout(r, 30));
    await getBytes(server, `${FILES}/${id}/content/`, project, token);
    await until(async () => (await server.request(`${FILES}/${id}/`, { project, token })).body.last_access > before, 4000);
  });

  it("PUT replaces a _files record's bytes and removes the old blob; DELETE removes record and bytes", async () => {
    const put = await upload(form([["file", "first version", "v.txt"]]), `${FILES}/my-file/`, "PUT");
    expect(put.status, put.text).toBe(201);
    expect(put.body._id).toBe("my-file");
    expect(put.body.content_type).toBe("text/plain");
    const blobsBefore = (await blobFiles(server)).blobs.length;
    const again = await upload(form([["file", "second version!", "v.txt"]]), `${FILES}/my-file/`, "PUT");
    expect(again.status).toBe(200);
    expect(again.body.size).toBe(15);
    await until(async () => (await blobFiles(server)).blobs.length === blobsBefore);
    const got = await getBytes(server, `${FILES}/my-file/content/`, project, token);
    expect(got.body.toString()).toBe("second version!");
    const taken = await upload(form([["file", "x", "x.txt"]]), `${FILES}/my-file/`, "POST");
    expect(taken.status).toBe(409);
    const del = await server.request(`${FILES}/my-file/`, { project, token, method: "DELETE" });
    expect(del.status).toBe(204);
    expect((await server.request(`${FILES}/my-file/`, { project, token })).status).toBe(404);
    await until(async () => (await blobFiles(server)).blobs.length === blobsBefore - 1);
    expect(await filesSize(project)).toBe(await sumOfSizes(project));
  });

  it("lists _files records", async () => {
    const res = await server.request(`${FILES}/`, { project, token });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toContain(id);
  });

  it("filters on date_created compare instants, however the operand spells them", async () => {
    const res = await upload(form([["file", "dated", "dated.txt"]]), `${FILES}/dated/`, "PUT");
    expect(res.status, res.text).toBe(201);
    const created = new Date(res.body.date_created); // two fractional digits
    const second = new Date(Math.floor(created.getTime() / 1000) * 1000);
    const find = async (filter: unknown) => {
      const list = await server.request(`${FILES}/?filter=${encodeURIComponent(JSON.stringify(filter))}`, { project, token });
      expect(list.status, list.text).toBe(200);
      return (list.body.items as { _id: string }[]).some((item) => item._id === "dated");
    };
    const plus = (ms: number, zone = "Z") => new Date(second.getTime() + ms).toISOString().replace(/\.000Z$/, zone === "Z" ? "Z" : zone);
    // `…:04Z` once sorted after `…:04.61Z` as text.
    expect(await find({ _id: "dated", date_created: { $gte: plus(0) } })).toBe(true);
    expect(await find({ _id: "dated", date_created: { $lt: plus(1000) } })).toBe(true);
    expect(await find({ _id: "dated", date_created: { $gt: plus(1000) } })).toBe(false);
    // Another zone is the same instant.
    const local = new Date(second.getTime() + 3_600_000).toISOString().replace(/\.000Z$/, "+01:00");
    expect(await find({ _id: "dated", date_created: { $gte: local } })).toBe(true);
    expect(await find({ _id: "dated", date_created: res.body.date_created })).toBe(true);
  });
});

describe("content types", () => {
  it("a PNG named .txt is stored as image/png and served inline", async () => {
    const res = await upload(form([["file", PNG, "picture.txt"]]));
    expect(res.status, res.text).toBe(201);
    expect(res.body.content_type).toBe("image/png");
    const got = await getBytes(server, `${FILES}/${res.body._id}/content/`, project, token);
    expect(got.headers.get("content-type")).toBe("image/png");
    expect(got.headers.get("content-disposition")).toBe(`inline; filename="picture.txt"; filename*=UTF-8''picture.txt`);
  });

  it("text by extension: .csv is text/csv", async () => {
    const res = await upload(form([["file", "a,b\n1,2\n", "table.csv"]]));
    expect(res.body.content_type).toBe("text/csv");
  });

  it("text whose extension maps to a type outside the list (.md, .php) is that type: 422, nothing stored", async () => {
    const before = await filesSize(project);
    for (const [name, type] of [["notes.md", "text/markdown"], ["x.php", "application/x-httpd-php"]]) {
      const res = await upload(form([["file", "# plain words\n", name]]));
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ property: "file", message: `content type ${type} is not allowed` });
    }
    expect(await filesSize(project)).toBe(before);
  });

  it("HTML is served as attachment with CSP sandbox", async () => {
    const res = await upload(form([["file", "<!doctype html><script>alert(1)</script>", "page.html"]]));
    expect(res.status, res.text).toBe(201);
    expect(res.body.content_type).toBe("text/html");
    const got = await getBytes(server, `${FILES}/${res.body._id}/content/`, project, token);
    expect(got.headers.get("content-disposition")).toBe(`attachment; filename="page.html"; filename*=UTF-8''page.html`);
    expect(got.headers.get("content-security-policy")).toBe("sandbox");
    expect(got.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("non-ASCII names get filename*", async () => {
    const res = await upload(form([["file", "hi", "résumé ü.txt"]]));
    const got = await getBytes(server, `${FILES}/${res.body._id}/content/`, project, token);
    expect(got.headers.get("content-disposition")).toContain("filename*=UTF-8''r%C3%A9sum%C3%A9%20%C3%BC.txt");
  });

  it.each([
    ["ELF", ELF, "program"],
    ["WebAssembly", WASM, "module.wasm"],
  ])("%s is refused with 422 and nothing is stored", async (_label, bytes, name) => {
    const size = await filesSize(project);
    const rows = (await fileRows(project)).length;
    const blobs = (await blobFiles(server)).blobs.length;
    const markers = await pendingMarkers(project);
    const res = await upload(form([["file", bytes, name]]));
    expect(res.status, res.text).toBe(422);
    expect(await filesSize(project)).toBe(size);
    expect((await fileRows(project)).length).toBe(rows);
    expect((await blobFiles(server)).blobs.length).toBe(blobs);
    expect(await pendingMarkers(project)).toBe(markers);
    await until(async () => (await blobFiles(server)).temps.length === 0);
    // Into a document property as well: no document, no file.
    const doc = await server.request("/api/collections/things/documents/", { project, token, body: form([["_id", '"refused"'], ["attachment", bytes, name]]) });
    expect(doc.status).toBe(422);
    expect((await server.request("/api/collections/things/documents/refused/", { project, token })).status).toBe(404);
    expect(await filesSize(project)).toBe(size);
  });
});
