import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processBlobDeletions } from "../../files/blob-deletions";
import { markUnreferencedFiles, sweepOrphanFiles } from "../../files/orphan-sweep";
import { opaqueBytes, ownerWithProject } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/test-server";
import { blobFiles, closeDb, db, fileRows, filesSize, form, getBytes, pendingMarkers, PNG, sumOfSizes, until } from "./files-helpers";

let server: TestServer;
let owner: Awaited<ReturnType<typeof ownerWithProject>>;
let project: string;
let token: string;
const docs = (c: string) => `/api/collections/${c}/documents`;

beforeAll(async () => {
  server = await startTestServer();
  owner = await ownerWithProject(server);
  ({ project, token } = owner);
});
afterAll(async () => {
  await closeDb();
  await server.close();
});

const send = (path: string, body: FormData, method = "POST") => server.request(path, { project, token, method, body });
const NINE = ["_id", "collection_id", "content_type", "date_created", "document_id", "last_access", "md5", "name", "size"];

describe("files in document properties", () => {
  it("uploads into a property; the record reads the same through the property path and _files", async () => {
    const res = await send(`${docs("notes")}/`, form([["_id", '"n1"'], ["title", '"hello"'], ["meta.avatar", PNG, "me.png"]]));
    expect(res.status, res.text).toBe(201);
    expect(res.body.title).toBe("hello");
    const record = res.body.meta.avatar;
    expect(Object.keys(record).sort()).toEqual(NINE);
    expect(record).toMatchObject({ collection_id: "notes", document_id: "n1", content_type: "image/png", name: "me.png", size: PNG.length });

    const viaProperty = await server.request(`${docs("notes")}/n1/meta/avatar/`, { project, token });
    const viaFiles = await server.request(`/api/collections/_files/documents/${record._id}/`, { project, token });
    expect(viaProperty.status).toBe(200);
    expect(viaProperty.text).toBe(viaFiles.text);
    expect(Object.keys(viaFiles.body).sort()).toEqual(NINE);

    for (const path of [`${docs("notes")}/n1/meta/avatar/content/`, `/api/collections/_files/documents/${record._id}/content/`]) {
      const got = await getBytes(server, path, project, token);
      expect(got.status).toBe(200);
      expect(got.body.equals(PNG)).toBe(true);
      expect(got.headers.get("content-length")).toBe(String(PNG.length));
      const part = await getBytes(server, path, project, token, { range: "bytes=1-3" });
      expect(part.status).toBe(206);
      expect(part.body.toString("latin1")).toBe("PNG");
    }
    // After a download (last_access moves), the document and its list show the record as it is
    // now, the same as _files shows it.
    await new Promise((r) => setTimeout(r, 30));
    await getBytes(server, `/api/collections/_files/documents/${record._id}/content/`, project, token);
    await until(async () => (await server.request(`/api/collections/_files/documents/${record._id}/`, { project, token })).body.last_access > record.last_access, 4000);
    const live = (await server.request(`/api/collections/_files/documents/${record._id}/`, { project, token })).text;
    const read = await server.request(`${docs("notes")}/n1/`, { project, token });
    expect(JSON.stringify(read.body.meta.avatar)).toBe(live);
    const listed = await server.request(`${docs("notes")}/?filter=${encodeURIComponent('{"_id":"n1"}')}`, { project, token });
    expect(JSON.stringify(listed.body.items[0].meta.avatar)).toBe(live);
    // A path inside the record reads it as it is now too (it read the upload's copy).
    const lastAccess = await server.request(`${docs("notes")}/n1/meta/avatar/last_access/`, { project, token });
    expect(lastAccess.body).toBe(JSON.parse(live).last_access);
    // A write's answer shows the record as a read does, on the document and on a property path.
    const written = await server.request(`${docs("notes")}/n1/`, { project, token, method: "PATCH", json: { title: "edited" } });
    expect(JSON.stringify(written.body.meta.avatar)).toBe(live);
    const property = await server.request(`${docs("notes")}/n1/meta/`, { project, token, method: "PATCH", json: { note: 1 } });
    expect(JSON.stringify(property.body.avatar)).toBe(live);
    // Paths inside a file record are not writable: the record changes only by uploading.
    for (const method of ["PUT", "POST", "PATCH", "DELETE"]) {
      const inside = await server.request(`${docs("notes")}/n1/meta/avatar/name/`, { project, token, method, json: method === "DELETE" ? undefined : "other.png" });
      expect(inside.status, `${method} ${inside.text}`).toBe(422);
      expect(inside.body.errors[0].property).toBe("meta.avatar");
    }
    // Nor by an upload there: no file goes into a copy of a record.
    const sizeBefore = await filesSize(project);
    for (const path of ["meta/avatar/name/", "meta/avatar/content/"]) {
      const upload = await send(`${docs("notes")}/n1/${path}`, form([["f", PNG, "inner.png"]]), "PUT");
      expect(upload.status, `${path} ${upload.text}`).toBe(422);
      expect(upload.body.errors[0].property).toBe("meta.avatar");
    }
    expect(await filesSize(project)).toBe(sizeBefore);
    expect(JSON.stringify((await server.request(`${docs("notes")}/n1/`, { project, token })).body.meta.avatar)).toBe(live);
    // A property that is not a file: "content" is just a property name.
    await server.request(`${docs("notes")}/n2/`, { project, token, method: "PUT", json: { info: { content: 7 } } });
    expect((await server.request(`${docs("notes")}/n2/info/content/`, { project, token })).body).toBe(7);
    expect(await filesSize(project)).toBe(await sumOfSizes(project));
  });

  it("repeated parts: all stored for an array-of-file schema, the first only without a schema", async () => {
    const schema = { type: "object", properties: { photos: { type: "array", items: { type: "file" } }, title: { type: "string" } } };
    const created = await server.request("/api/collections/", { project, token, json: { _id: "albums", schema } });
    expect(created.status, created.text).toBe(201);
    const three = form([["_id", '"a1"'], ["photos", "one", "1.txt"], ["photos", "two", "2.txt"], ["photos", "three", "3.txt"]]);
    const res = await send(`${docs("albums")}/`, three);
    expect(res.status, res.text).toBe(201);
    expect(res.body.photos.map((p: { name: string }) => p.name)).toEqual(["1.txt", "2.txt", "3.txt"]);
    const second = await getBytes(server, `${docs("albums")}/a1/photos/1/content/`, project, token);
    expect(second.body.toString()).toBe("two");

    const before = (await fileRows(project)).length;
    const loose = await send(`${docs("loose")}/`, form([["_id", '"l1"'], ["photos", "one", "1.txt"], ["photos", "two", "2.txt"]]));
    expect(loose.status, loose.text).toBe(201);
    expect(loose.body.photos.name).toBe("1.txt");
    expect((await fileRows(project)).length).toBe(before + 1);
    await until(async () => (await blobFiles(server)).temps.length === 0);
    expect(await filesSize(project)).toBe(await sumOfSizes(project));
  });

  it("replacing a file property (PATCH multipart, PUT on the property path) deletes the old file and its blob", async () => {
    const res = await send(`${docs("cards")}/`, form([["_id", '"c1"'], ["picture", "old bytes", "old.txt"]]));
    const oldId = res.body.picture._id;
    const blobs = (await blobFiles(server)).blobs.length;
    const patched = await send(`${docs("cards")}/c1/`, form([["picture", "new bytes!", "new.txt"]]), "PATCH");
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.picture.name).toBe("new.txt");
    expect((await server.request(`/api/collections/_files/documents/${oldId}/`, { project, token })).status).toBe(404);
    await until(async () => (await blobFiles(server)).blobs.length === blobs);
    const set = await send(`${docs("cards")}/c1/picture/`, form([["any", "newest", "newest.txt"]]), "PUT");
    expect(set.status, set.text).toBe(200);
    // A property path answers the property's value: here the file record (CONTRACT §5).
    expect(set.body.name).toBe("newest.txt");
    await until(async () => (await blobFiles(server)).blobs.length === blobs);
    expect((await getBytes(server, `${docs("cards")}/c1/picture/content/`, project, token)).body.toString()).toBe("newest");
    // A JSON write that drops the property removes the file too.
    const put = await server.request(`${docs("cards")}/c1/`, { project, token, method: "PUT", json: { title: "no picture" } });
    expect(put.status).toBe(200);
    await until(async () => (await blobFiles(server)).blobs.length === blobs - 1);
    expect(await filesSize(project)).toBe(await sumOfSizes(project));
  });

  it("file records in a document change only by uploading: edits and forgeries are 422, a read-back copy is kept, moves and drops are taken", async () => {
    const schema = { type: "object", properties: { title: { type: "string" }, photo: { type: "file" }, old: { type: "file" }, extra: { type: "object" } } };
    expect((await server.request("/api/collections/", { project, token, json: { _id: "framed", schema } })).status).toBe(201);
    const made = await send(`${docs("framed")}/`, form([["_id", '"f1"'], ["title", '"t"'], ["photo", "frame bytes", "frame.txt"]]));
    expect(made.status, made.text).toBe(201);
    const record = made.body.photo;
    const stored = async () => (await (await db()).query("SELECT data FROM documents WHERE project_id = $1 AND collection_id = 'framed' AND id = 'f1'", [project])).rows[0].data;
    const original = await stored();
    const forged = { ...record, _id: "forged-file-id" };
    const refusals: [string, string, unknown, string, Record<string, string>?][] = [
      ["PATCH", "f1/", { photo: { ...record, size: 1 } }, "photo"],
      ["PATCH", "f1/", { photo: { name: "evil.exe" } }, "photo"],
      ["PATCH", "f1/", { photo: { name: "evil.exe" } }, "photo", { "content-type": "application/merge-patch+json" }],
      ["PATCH", "f1/photo/", { name: "evil.exe" }, "photo"],
      ["PUT", "f1/", { ...original, photo: { ...record, md5: "0".repeat(32) } }, "photo"],
      ["PUT", "f1/", { ...original, extra: { copy: forged } }, "extra.copy"],
      ["PUT", "f1/", { ...original, photo: { any: "object" } }, "photo"],
      ["PUT", "f1/old/", forged, "old"],
      ["POST", "", { _id: "f2", photo: record }, "photo"],
    ];
    for (const [method, path, json, property, headers] of refusals) {
      const res = await server.request(`${docs("framed")}/${path}`, { project, token, method, json, headers });
      expect(res.status, `${method} ${path} ${JSON.stringify(json)}: ${res.text}`).toBe(422);
      expect(res.body.errors.map((e: { property: string }) => e.property)).toContain(property);
    }
    for (const action of [{ $set: { "photo.size": 1 } }, { $unset: { "photo.md5": "" } }]) {
      const res = await server.request(`${docs("framed")}/`, { project, token, headers: { "x-action": "update" }, json: { filter: { _id: "f1" }, operation: action } });
      expect(res.status, `${JSON.stringify(action)}: ${res.text}`).toBe(422);
    }
    // In a collection without a schema too, and by import: no record of the client's making.
    const loose = await server.request(`${docs("loose-files")}/`, { project, token, json: { attachment: forged } });
    expect(loose.status, loose.text).toBe(422);
    expect(loose.body.errors[0]).toEqual({ property: "attachment", message: "is not a file of this document: a file property is filled by uploading" });
    const imported = await server.request(`/api/collections/loose-files/import/?format=jsonl`, { project, token, method: "POST", body: `${JSON.stringify({ _id: "i1", a: forged })}\n`, headers: { "content-type": "application/x-ndjson" } });
    expect(imported.status, imported.text).toBe(200);
    expect(imported.body).toMatchObject({ created: 0, failed: 1 });
    expect(await stored()).toEqual(original);

    // A client's read-back copy (a fresher last_access) is taken and stored as the server wrote it.
    const readBack = { ...record, last_access: "2099-01-01T00:00:00.00Z" };
    const put = await server.request(`${docs("framed")}/f1/`, { project, token, method: "PUT", json: { title: "again", photo: readBack } });
    expect(put.status, put.text).toBe(200);
    expect((await stored()).photo).toEqual(original.photo);
    // Moved to another property: the same file, bytes and all; dropped: gone.
    const moved = await server.request(`${docs("framed")}/f1/`, { project, token, method: "PUT", json: { title: "moved", old: record } });
    expect(moved.status, moved.text).toBe(200);
    expect((await getBytes(server, `${docs("framed")}/f1/old/content/`, project, token)).body.toString()).toBe("frame bytes");
    const dropped = await server.request(`${docs("framed")}/f1/`, { project, token, method: "PUT", json: { title: "none" } });
    expect(dropped.status).toBe(200);
    expect((await server.request(`/api/collections/_files/documents/${record._id}/`, { project, token })).status).toBe(404);
    expect(await filesSize(project)).toBe(await sumOfSizes(project));
  });

  it("deleting a _files record unsets the property and removes the bytes", async () => {
    const res = await send(`${docs("cards")}/`, form([["_id", '"c2"'], ["keep", '"yes"'], ["picture", "bytes", "p.txt"]]));
    const blobs = (await blobFiles(server)).blobs.length;
    const del = await server.request(`/api/collections/_files/documents/${res.body.picture._id}/`, { project, token, method: "DELETE" });
    expect(del.status).toBe(204);
    const doc = await server.request(`${docs("cards")}/c2/`, { project, token });
    expect(doc.body).toEqual({ _id: "c2", keep: "yes" });
    await until(async () => (await blobFiles(server)).blobs.length === blobs - 1);
    expect(await filesSize(project)).toBe(await sumOfSizes(project));
  });

  it("a _files delete that would break an immutable or required file property is refused like the property's own DELETE (422, nothing deleted)", async () => {
    const schema = { type: "object", properties: { f: { type: "file", immutable: true }, g: { type: "file", required: true }, h: { type: "file" } } };
    expect((await server.request("/api/collections/", { project, token, json: { _id: "kept", schema } })).status).toBe(201);
    const res = await send(`${docs("kept")}/`, form([["_id", '"k1"'], ["f", "one", "f.txt"], ["g", "two", "g.txt"], ["h", "three", "h.txt"]]));
    expect(res.status, res.text).toBe(201);
    const files = () => server.request(`/api/collections/_files/documents/`, { project, token, action: "find", json: { filter: { collection_id: "kept" } } });
    const del = (id: string) => server.request(`/api/collections/_files/documents/${id}/`, { project, token, method: "DELETE" });
    const immutable = await del(res.body.f._id);
    expect(immutable.status).toBe(422);
    expect(immutable.body).toEqual({ message: "Validation error", errors: [{ property: "f", message: "is immutable and cannot be changed" }] });
    const required = await del(res.body.g._id);
    expect(required.status).toBe(422);
    expect(required.body.errors).toEqual([{ property: "g", message: "is required" }]);
    // By criteria, one refusal refuses the request before any file goes.
    const bulk = await server.request(`/api/collections/_files/documents/`, { project, token, action: "delete", json: { filter: { collection_id: "kept" } } });
    expect(bulk.status).toBe(422);
    expect((await files()).body.total).toBe(3);
    expect((await server.request(`${docs("kept")}/k1/`, { project, token })).body).toEqual(res.body);
    // Two files its document may lose one at a time but not both: by criteria, all or none.
    const either = { type: "object", properties: { x: { type: "file" }, y: { type: "file" } }, anyOf: [{ required: ["x"] }, { required: ["y"] }] };
    expect((await server.request("/api/collections/", { project, token, json: { _id: "either", schema: either } })).status).toBe(201);
    const pair = await send(`${docs("either")}/`, form([["_id", '"e1"'], ["x", "ex", "x.txt"], ["y", "why", "y.txt"]]));
    expect(pair.status, pair.text).toBe(201);
    const both = await server.request(`/api/collections/_files/documents/`, { project, token, action: "delete", json: { filter: { _id: { $in: [pair.body.x._id, pair.body.y._id] } } } });
    expect(both.status).toBe(422);
    expect((await server.request(`${docs("either")}/e1/`, { project, token })).body).toEqual(pair.body);
    expect((await files()).body.total).toBe(3);
    expect(await filesSize(project)).toBe(await sumOfSizes(project));
    expect((await del(pair.body.x._id)).status).toBe(204);
    // An optional, mutable file property still lets its record go.
    expect((await del(res.body.h._id)).status).toBe(204);
    expect(Object.keys((await server.request(`${docs("kept")}/k1/`, { project, token })).body).sort()).toEqual(["_id", "f", "g"]);
    expect(await filesSize(project)).toBe(await sumOfSizes(project));
  });

  it("deleting a document, or its collection, removes its files", async () => {
    const res = await send(`${docs("trash")}/`, form([["_id", '"t1"'], ["f", "bytes 1", "a.txt"]]));
    await send(`${docs("trash")}/`, form([["_id", '"t2"'], ["f", "bytes 2", "b.txt"]]));
    const blobs = (await blobFiles(server)).blobs.length;
    expect((await server.request(`${docs("trash")}/t1/`, { project, token, method: "DELETE" })).status).toBe(204);
    expect((await server.request(`/api/collections/_files/documents/${res.body.f._id}/`, { project, token })).status).toBe(404);
    await until(async () => (await blobFiles(server)).blobs.length === blobs - 1);
    expect((await server.request(`/api/collections/trash/`, { project, token, method: "DELETE" })).status).toBe(204);
    await until(async () => (await blobFiles(server)).blobs.length === blobs - 2);
    expect(await filesSize(project)).toBe(await sumOfSizes(project));
  });

  it("a failed document write (taken _id: 409) leaves no file behind", async () => {
    const size = await filesSize(project);
    const blobs = (await blobFiles(server)).blobs.length;
    const res = await send(`${docs("cards")}/`, form([["_id", '"c2"'], ["picture", "dup", "d.txt"]]));
    expect(res.status).toBe(409);
    expect(await filesSize(project)).toBe(size);
    expect((await blobFiles(server)).blobs.length).toBe(blobs);
    expect((await (await db()).query("SELECT count(*)::int AS n FROM blob_deletions WHERE blob_key LIKE $1", [`${project}/%`])).rows[0].n).toBe(0);
  });

  it("20 concurrent uploads leave files_size exact", async () => {
    const before = await filesSize(project);
    const sizes = Array.from({ length: 20 }, (_, i) => 1000 + i * 37);
    const results = await Promise.all(sizes.map((n, i) => send(`${docs("many")}/`, form([["_id", `"m${i}"`], ["f", opaqueBytes(n), `m${i}.bin`]]))));
    expect(results.map((r) => r.status)).toEqual(sizes.map(() => 201));
    expect(await filesSize(project)).toBe(before + sizes.reduce((a, b) => a + b, 0));
    expect(await filesSize(project)).toBe(await sumOfSizes(project));
  });

  it("concurrent multipart saves (PUT) of one new document with a file: one 201, the rest 200, no 409", async () => {
    for (const [path, id] of [[`${docs("msave")}/ms1/`, "ms1"], [`${docs("msave")}/`, "ms2"]]) {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => send(path, form([["_id", `"${id}"`], ["i", String(i)], ["att", opaqueBytes(100 + i), `a${i}.bin`]]), "PUT")),
      );
      expect(results.map((r) => r.status).sort(), path).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    }
    expect(await filesSize(project)).toBe(await sumOfSizes(project));
  });

  it("concurrent deletes of one _files record: one 204, the rest 404, one event each for the record and the document", async () => {
    const res = await send(`${docs("race")}/`, form([["_id", '"r1"'], ["title", '"t"'], ["photo", PNG, "p.png"]]));
    expect(res.status, res.text).toBe(201);
    const fileId = res.body.photo._id;
    const client = await db();
    const eventsBefore = (await client.query("SELECT count(*)::int AS n FROM document_events WHERE project_id = $1", [project])).rows[0].n;
    const results = await Promise.all(
      Array.from({ length: 8 }, () => server.request(`/api/collections/_files/documents/${fileId}/`, { project, token, method: "DELETE" })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([204, 404, 404, 404, 404, 404, 404, 404]);
    for (const r of results.filter((r) => r.status === 404)) expect(r.body).toEqual({ message: "Document not found." });
    const { rows } = await client.query("SELECT collection_id, kind FROM document_events WHERE project_id = $1 ORDER BY id OFFSET $2", [project, eventsBefore]);
    expect(rows).toEqual([
      { collection_id: "race", kind: "updated" },
      { collection_id: "_files", kind: "deleted" },
    ]);
    const doc = await server.request(`${docs("race")}/r1/`, { project, token });
    expect(doc.body).toEqual({ _id: "r1", title: "t" });
  });

  it("402 past settings.files_size_limit, nothing stored", async () => {
    const other = await ownerWithProject(server);
    const patched = await server.request(`/api/user/projects/${other.project}`, { method: "PATCH", session: other.session, json: { settings: { files_size_limit: 1500 } } });
    expect(patched.status, patched.text).toBe(200);
    const ok = await server.request(`${docs("x")}/`, { project: other.project, token: other.token, body: form([["f", opaqueBytes(1000), "a.bin"]]) });
    expect(ok.status).toBe(201);
    const over = await server.request(`/api/collections/_files/documents/`, { project: other.project, token: other.token, body: form([["file", opaqueBytes(1000), "b.bin"]]) });
    expect(over.status).toBe(402);
    expect(await filesSize(other.project)).toBe(1000);
    expect((await fileRows(other.project)).length).toBe(1);
    expect((await blobFiles(server)).blobs.filter((b) => b.includes(`${other.project}`)).length).toBe(1);
  });

  it("near settings.files_size_limit a file replaced by one no larger is taken; one that grows past it is 402 and changes nothing", async () => {
    const other = await ownerWithProject(server);
    const patched = await server.request(`/api/user/projects/${other.project}`, { method: "PATCH", session: other.session, json: { settings: { files_size_limit: 1200 } } });
    expect(patched.status).toBe(200);
    const put = (id: string, size: number, method = "PUT") =>
      server.request(`${docs("near")}/${id}/`, { project: other.project, token: other.token, method, body: form([["f", opaqueBytes(size), `${id}.bin`]]) });
    expect((await put("a", 500)).status).toBe(201);
    expect((await put("b", 500)).status).toBe(201);
    const same = await put("a", 500);
    expect(same.status, same.text).toBe(200);
    const smaller = await put("b", 300, "PATCH");
    expect(smaller.status, smaller.text).toBe(200);
    expect(await filesSize(other.project)).toBe(800);
    const grows = await put("a", 950);
    expect(grows).toMatchObject({ status: 402, body: { message: "Project files size limit exceeded" } });
    expect(await filesSize(other.project)).toBe(800);
    expect(await filesSize(other.project)).toBe(await sumOfSizes(other.project));
    expect((await put("a", 900)).status).toBe(200);
    expect(await filesSize(other.project)).toBe(1200);
  });

  it("cross-project: another project's token gets 401; our host with their file id gets 404", async () => {
    const res = await send(`/api/collections/_files/documents/`, form([["file", "secret", "s.txt"]]));
    const id = res.body._id;
    const other = await ownerWithProject(server);
    const theirToken = await server.request(`/api/collections/_files/documents/${id}/`, { project, token: other.token });
    expect(theirToken.status).toBe(401);
    expect((await getBytes(server, `/api/collections/_files/documents/${id}/content/`, project, other.token)).status).toBe(401);
    const theirProject = await server.request(`/api/collections/_files/documents/${id}/`, { project: other.project, token: other.token });
    expect(theirProject.status).toBe(404);
    expect((await getBytes(server, `/api/collections/_files/documents/${id}/content/`, other.project, other.token)).status).toBe(404);
  });

  it("an aborted upload leaves no row, no blob, no temp file, no marker and files_size unchanged", async () => {
    const size = await filesSize(project);
    const rows = (await fileRows(project)).length;
    const blobs = (await blobFiles(server)).blobs.length;
    const markers = await pendingMarkers(project);
    const boundary = "----arca-abort";
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: "127.0.0.1",
        port: server.port,
        method: "POST",
        path: "/api/collections/_files/documents/",
        headers: { "x-project": project, authorization: `Token ${token}`, "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": String(10 * 1024 * 1024) },
      });
      req.on("error", () => resolve());
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
      req.write(opaqueBytes(2 * 1024 * 1024));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 300);
    });
    // Bytes staged in place sit under their final key until the abort is handled.
    await until(async () => {
      const now = await blobFiles(server);
      return now.temps.length === 0 && now.blobs.length === blobs && (await pendingMarkers(project)) === markers;
    });
    expect((await blobFiles(server)).blobs.length).toBe(blobs);
    expect(await pendingMarkers(project)).toBe(markers);
    expect((await fileRows(project)).length).toBe(rows);
    expect(await filesSize(project)).toBe(size);
  });

  it("orphan sweep: a file whose document no longer holds it is deleted after orphan_files_ttl", async () => {
    const other = await ownerWithProject(server);
    await server.request(`/api/user/projects/${other.project}`, { method: "PATCH", session: other.session, json: { settings: { orphan_files_ttl: "1s" } } });
    const res = await server.request(`${docs("o")}/`, { project: other.project, token: other.token, body: form([["_id", '"o1"'], ["f", "orphan", "o.txt"]]) });
    // Detach it behind the API's back (the case the sweep exists for).
    await (await db()).query(`UPDATE documents SET data = data - 'f' WHERE project_id = $1 AND id = 'o1'`, [other.project]);
    const blobs = (await blobFiles(server)).blobs.length;
    // Normal writes mark at once; a hand edit is found by the safety net (at start, then hourly).
    await markUnreferencedFiles();
    expect((await fileRows(other.project))[0].orphaned_at).not.toBeNull();
    await new Promise((r) => setTimeout(r, 1100));
    await sweepOrphanFiles();
    expect(await fileRows(other.project)).toHaveLength(0);
    expect(await filesSize(other.project)).toBe(0);
    await processBlobDeletions({ projectId: other.project });
    expect(res.status).toBe(201);
    await until(async () => (await blobFiles(server)).blobs.length === blobs - 1);
  });
});
