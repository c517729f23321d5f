import { randomBytes } from "node:crypto";
import http from "node:http";
import { encode } from "next-auth/jwt";
import { describe, expect, it } from "vitest";
import { resetConfig } from "../../config";
import { createProject, createToken } from "../../testing/fixtures";
import { apiSuite } from "../../testing/api-suite";

/**
 * Import and export of a collection's documents (issue 14): formats, typing, permissions, the
 * same write path as single creates (validation, counters, events), errors, limits, streaming.
 */
const t = apiSuite();
const as = () => ({ project: t.owner.project, token: t.owner.token });
const docs = (c: string) => `/api/collections/${c}/documents/`;

async function importBody(c: string, body: string | Buffer, query = "", headers: Record<string, string> = {}, token = t.owner.token) {
  return t.server.request(`/api/collections/${c}/import/${query}`, { project: t.owner.project, token, method: "POST", body: typeof body === "string" ? body : new Uint8Array(body), headers: { "content-type": "application/x-ndjson", ...headers } });
}

async function exported(c: string, query = "", token = t.owner.token) {
  return t.server.request(`/api/collections/${c}/export/${query}`, { project: t.owner.project, token });
}

async function schema(c: string, properties: Record<string, unknown>) {
  const res = await t.server.request(`/api/collections/${c}/`, { ...as(), method: "PUT", json: { schema: { type: "object", properties } } });
  expect(res.status, res.text).toBeLessThan(300);
}

const lines = (text: string) => text.split("\n").filter(Boolean).map((l) => JSON.parse(l));

describe("export", () => {
  it("JSON Lines: every document as stored, `_id` first, in `_id` order, as an attachment", async () => {
    await t.server.request(docs("ex"), { ...as(), json: { _id: "b", n: 2, tags: ["x"], o: { k: null } } });
    await t.server.request(docs("ex"), { ...as(), json: { _id: "a", n: 1, s: "é\n\"q\"" } });
    const res = await exported("ex");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="ex.jsonl"');
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.text).toBe('{"_id":"a","n":1,"s":"é\\n\\"q\\""}\n{"_id":"b","n":2,"o":{"k":null},"tags":["x"]}\n');
    expect(lines(res.text).map((d) => Object.keys(d)[0])).toEqual(["_id", "_id"]);
  });

  it("CSV: `_id`, the schema's properties by position, then other keys; RFC 4180 quoting; typed values as text", async () => {
    await schema("exc", { title: { type: "string", position: 2 }, n: { type: "number", position: 1 }, ok: { type: "boolean" }, meta: { type: "object" } });
    await t.server.request(docs("exc"), { ...as(), json: { _id: "1", title: 'He said "hi", then\nleft', n: 1.5, ok: true, meta: { a: [1] } } });
    await t.server.request(docs("exc"), { ...as(), json: { _id: "2", title: "plain" } });
    const res = await exported("exc", "?format=csv");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="exc.csv"');
    expect(res.text).toBe('_id,n,title,ok,meta\r\n1,1.5,"He said ""hi"", then\nleft",true,"{""a"":[1]}"\r\n2,,plain,,\r\n');
  });

  it("CSV: properties without a position follow in the order the schema declares them (kept as written)", async () => {
    const properties = { zeta: { type: "string" }, alpha: { type: "integer" }, mid: { type: "boolean", position: 1 }, obj: { type: "object" } };
    await schema("declared", properties);
    const definition = await t.server.request("/api/collections/declared/", as());
    expect(Object.keys(definition.body.schema.properties)).toEqual(["zeta", "alpha", "mid", "obj"]);
    await t.server.request(docs("declared"), { ...as(), json: { _id: "1", alpha: 2 } });
    expect((await exported("declared", "?format=csv")).text).toBe("_id,mid,zeta,alpha,obj\r\n1,,,2,\r\n");
    // A PATCH of the definition keeps the order too, a new property last.
    await t.server.request("/api/collections/declared/", { ...as(), method: "PATCH", json: { schema: { properties: { beta: { type: "string" } } } } });
    expect(Object.keys((await t.server.request("/api/collections/declared/", as())).body.schema.properties)).toEqual(["zeta", "alpha", "mid", "obj", "beta"]);
  });

  it("an empty collection: no lines, or the CSV header alone", async () => {
    await schema("empty", { a: { type: "string" } });
    expect((await exported("empty")).text).toBe("");
    expect((await exported("empty", "?format=csv")).text).toBe("_id,a\r\n");
  });

  it("filter, text and sort as in lists, across batch boundaries (keyset paging on the sort keys)", async () => {
    const c = "exs";
    const rows = Array.from({ length: 2500 }, (_, i) => ({ _id: `d${String(i).padStart(4, "0")}`, g: i % 3 === 0 ? null : i % 5, ...(i % 7 === 0 ? {} : { h: `${i % 4}` }) }));
    const res = await importBody(c, rows.map((r) => JSON.stringify(r)).join("\n"));
    expect(res.body).toMatchObject({ created: 2500, failed: 0 });
    const all = lines((await exported(c)).text);
    expect(all.map((d) => d._id)).toEqual(rows.map((r) => r._id));
    for (const sort of ["-g,h", "h,-_id", "-h,g", "g"]) {
      const list: { _id: string }[] = [];
      for (let page = 1; ; page++) {
        const p = await t.server.request(`${docs(c)}?sort=${sort}&per_page=1000&page=${page}`, as());
        list.push(...p.body.items);
        if (page >= p.body.pages) break;
      }
      const out = lines((await exported(c, `?sort=${sort}`)).text);
      expect(out.map((d) => d._id), sort).toEqual(list.map((d) => d._id));
    }
    const filtered = lines((await exported(c, `?filter=${encodeURIComponent(JSON.stringify({ g: { $gte: 3 } }))}&sort=-_id`)).text);
    expect(filtered.length).toBe(rows.filter((r) => typeof r.g === "number" && r.g >= 3).length);
    expect(filtered[0]._id > filtered[1]._id).toBe(true);
    expect((await exported(c, "?text=x")).status).toBe(400);
  });

  it("errors: unknown collection 404, system collections 404, bad format or filter 400, no read 403, no credentials 401", async () => {
    expect((await exported("nope")).status).toBe(404);
    expect((await exported("nope")).body).toEqual({ message: "Collection not found." });
    for (const system of ["_files", "_users", "_tokens", "_hooks"]) expect((await exported(system)).status).toBe(404);
    expect((await exported("ex", "?format=xml")).body).toEqual({ message: "format must be one of jsonl, csv" });
    expect((await exported("ex", "?format=xml")).status).toBe(400);
    expect((await exported("ex", "?filter=%7Bx")).status).toBe(400);
    expect((await exported("ex", `?filter=${encodeURIComponent('{"a":{"$bogus":1}}')}`)).status).toBe(400);
    expect((await exported("ex", "?sort=a..b")).status).toBe(400);
    const writer = await createToken(t.server, t.owner.session, t.owner.project, { allow: { write: ["ex"] } });
    const refused = await exported("ex", "", writer);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/read/);
    expect((await t.server.request("/api/collections/ex/export/", { project: t.owner.project })).status).toBe(401);
    const other = await createProject(t.server, t.owner.session);
    expect((await t.server.request("/api/collections/ex/export/", { project: other, token: t.owner.token })).status).toBe(401);
    // Another project's token sees none of this project's collections, and its import writes only there.
    const otherToken = await createToken(t.server, t.owner.session, other);
    expect((await t.server.request("/api/collections/ex/export/", { project: other, token: otherToken })).status).toBe(404);
    const into = await t.server.request("/api/collections/ex/import/", { project: other, token: otherToken, method: "POST", body: '{"_id":"a","x":1}' });
    expect(into.body).toMatchObject({ created: 1, failed: 0 });
    expect(lines((await exported("ex")).text).find((d) => d._id === "a")).toEqual({ _id: "a", n: 1, s: 'é\n"q"' });
    // HEAD answers the headers without reading any batch.
    const head = await t.server.request("/api/collections/ex/export/", { ...as(), method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("application/x-ndjson");
  });

  it("streams: the first bytes arrive before the last batch is read (a document written meanwhile is in the rest)", async () => {
    const c = "big";
    const pad = "x".repeat(1000);
    const body = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ _id: `r${String(i).padStart(5, "0")}`, pad })).join("\n");
    expect((await importBody(c, body)).body).toMatchObject({ created: 20_000, failed: 0 });
    const url = new URL(`/api/collections/${c}/export/`, t.server.url);
    const res = await fetch(url, { headers: { "x-project": t.owner.project, authorization: `Token ${t.owner.token}` } });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    // 20 MB of answer cannot all sit in socket buffers: the end is still being read from the database.
    const late = await t.server.request(docs(c), { ...as(), json: { _id: "zzz-late", pad: "" } });
    expect(late.status).toBe(201);
    const decoder = new TextDecoder();
    let text = decoder.decode(first.value, { stream: true });
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const ids = lines(text).map((d) => d._id);
    expect(ids.length).toBe(20_001);
    expect(ids.at(-1)).toBe("zzz-late");
  });
});

describe("export as a dashboard download (a navigation: ?project= and the cookie)", () => {
  it("the cookie authorizes a same-origin navigation to `.../export/?project=`; another site's does not", async () => {
    const name = "authjs.session-token";
    const cookie = `${name}=${await encode({ token: { sessionId: t.owner.session }, secret: process.env.ARCA_SECRET!, salt: name })}`;
    const path = `/api/collections/ex/export/?format=csv&project=${t.owner.project}`;
    const navigations: Record<string, string>[] = [{ cookie }, { cookie, "sec-fetch-site": "same-origin", "sec-fetch-mode": "navigate" }];
    for (const headers of navigations) {
      const res = await t.server.request(path, { headers });
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get("content-disposition")).toBe('attachment; filename="ex.csv"');
      expect(res.text.split("\r\n")[0]).toBe("_id,n,s,o,tags");
    }
    expect((await t.server.request(path, { headers: { cookie, "sec-fetch-site": "cross-site" } })).status).toBe(401);
    expect((await t.server.request(path, { headers: { cookie, origin: "http://evil.example" } })).status).toBe(401);
    // `?project=` names the project on GET export only: not on import, not on lists.
    expect((await t.server.request(`/api/collections/ex/documents/?project=${t.owner.project}`, { headers: { cookie } })).status).toBe(404);
    expect((await t.server.request(`/api/collections/ex/import/?project=${t.owner.project}`, { method: "POST", body: "{}", headers: { cookie, origin: `http://${new URL(t.server.url).host}` } })).status).toBe(404);
  });
});

describe("import", () => {
  it("JSON Lines through the create path: created, row errors with their line numbers, and the import goes on", async () => {
    const c = "imp";
    await schema(c, { name: { type: "string", required: true }, n: { type: "integer" } });
    await t.server.request(docs(c), { ...as(), json: { _id: "taken", name: "first" } });
    const body = [
      '{"_id":"a","name":"A","n":1}',
      "{not json",
      "",
      "[1,2]",
      '{"_id":"b","n":"x"}',
      '{"_id":"taken","name":"again"}',
      '{"name":"generated"}',
      '{"_id":"bad id!","name":"x"}',
      '{"_id":"c","name":"C\\u0000"}',
      '{"_id":"d","name":"D"}',
    ].join("\r\n");
    const res = await importBody(c, body);
    expect(res.status, res.text).toBe(200);
    expect(res.body.created).toBe(3);
    expect(res.body.updated).toBe(0);
    expect(res.body.failed).toBe(6);
    expect(res.body.errors_truncated).toBeUndefined();
    expect(res.body.errors.map((e: { row: number }) => e.row)).toEqual([2, 4, 5, 6, 8, 9]);
    const [json, array, invalid, taken, badId, nul] = res.body.errors;
    expect(json).toEqual({ row: 2, message: "Malformed JSON" });
    expect(array).toEqual({ row: 4, message: "A line must be a JSON object" });
    expect(invalid).toMatchObject({ row: 5, _id: "b", message: "Validation error" });
    expect(invalid.errors.map((e: { property: string }) => e.property).sort()).toEqual(["n", "name"]);
    expect(taken).toEqual({ row: 6, _id: "taken", message: "Document with this _id already exists." });
    expect(badId).toMatchObject({ row: 8, _id: "bad id!", message: "Validation error", errors: [{ property: "_id" }] });
    expect(nul).toMatchObject({ row: 9, _id: "c" });
    expect(nul.message).toMatch(/NUL/);
    const collection = await t.server.request(`/api/collections/${c}/`, as());
    expect(collection.body.documents_count).toBe(4);
    expect((await t.server.request(`${docs(c)}taken/`, as())).body.name).toBe("first");
    const generated = await t.server.request(`${docs(c)}?filter=${encodeURIComponent('{"name":"generated"}')}`, as());
    expect(generated.body.items[0]._id).toMatch(/^[0-9a-f]{24}$/);
  });

  it("a row with bytes that are no UTF-8 is a row error, never stored altered (U+FFFD); the other rows go in", async () => {
    const c = "bytes";
    const jsonl = Buffer.concat([Buffer.from('{"_id":"ok","s":"fine \\ufffd spelled"}\n{"_id":"bad","s":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b"}\n{"_id":"after","s":"x"}\n')]);
    const res = await importBody(c, jsonl);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ created: 2, failed: 1, errors: [{ row: 2, _id: "bad", message: "Not valid UTF-8: the row holds bytes that are no text" }] });
    expect((await t.server.request(`${docs(c)}ok/`, as())).body).toEqual({ _id: "ok", s: "fine \ufffd spelled" });
    expect((await t.server.request(`${docs(c)}bad/`, as())).status).toBe(404);
    const csv = Buffer.concat([Buffer.from("_id,s\r\nc1,"), Buffer.from([0xc3]), Buffer.from("x\r\nc2,fine\r\n")]);
    const fromCsv = await importBody("bytescsv", csv, "?format=csv", { "content-type": "text/csv" });
    expect(fromCsv.body).toMatchObject({ created: 1, failed: 1, errors: [{ row: 1, _id: "c1", message: "Not valid UTF-8: the row holds bytes that are no text" }] });
  });

  it("exports big documents in batches sized by their bytes, every one once, in order (JSON Lines and CSV)", async () => {
    const c = "big-export";
    // Random hex: compressed to ~200 KB each at best, so a batch holds ~20 of them, not 1,000.
    const text = () => randomBytes(200_000).toString("hex");
    const body = Array.from({ length: 25 }, (_, i) => JSON.stringify({ _id: `b${String(i).padStart(2, "0")}`, text: text() })).join("\n");
    expect((await importBody(c, body)).body).toMatchObject({ created: 25, failed: 0 });
    const jsonl = (await exported(c)).text.trim().split("\n").map((line) => JSON.parse(line)._id);
    expect(jsonl).toEqual(Array.from({ length: 25 }, (_, i) => `b${String(i).padStart(2, "0")}`));
    const csv = (await exported(c, "?format=csv")).text.trim().split("\r\n");
    expect(csv).toHaveLength(26);
    expect(csv.slice(1).map((line) => line.split(",")[0])).toEqual(jsonl);
  });

  it("a CSV record of 200,000 fields is a row error (past 10,000 keys), never a stack overflow's 500", async () => {
    const names = Array.from({ length: 200_000 }, (_, i) => `c${i}`);
    const csv = `${names.join(",")}\r\n${names.map((_, i) => i).join(",")}\r\n`;
    const res = await importBody("wide-csv", csv, "?format=csv", { "content-type": "text/csv" });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body).toMatchObject({ created: 0, failed: 1, errors: [{ row: 1, message: "Document holds an object of more than 10000 keys" }] });
  });

  it("a row PostgreSQL refuses (a text-indexed value past 1 MiB of words) is a row error saying so, not an internal error; the other rows go in", async () => {
    const c = "imp-long";
    expect((await t.server.request("/api/collections/", { ...as(), json: { _id: c, indexes: [{ type: "text", property: "s" }] } })).status).toBe(201);
    const words = Array.from({ length: 150_000 }, (_, i) => `word${i}`).join(" ");
    const res = await importBody(c, [JSON.stringify({ _id: "long", s: words }), JSON.stringify({ _id: "short", s: "a few words" })].join("\n"));
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body).toMatchObject({
      created: 1,
      failed: 1,
      errors: [{ row: 1, _id: "long", message: "Validation error", errors: [{ property: null, message: "a text-indexed property is too long for full-text search (its words take at most 1 MiB)" }] }],
    });
  });

  it("writes what single creates write: one `created` event per document (hooks and the feed read them), exact data_size", async () => {
    const c = "imp-ev";
    const res = await importBody(c, Array.from({ length: 30 }, (_, i) => JSON.stringify({ _id: `e${i}`, i })).join("\n"));
    expect(res.body).toEqual({ created: 30, updated: 0, failed: 0, errors: [] });
    const events = await t.db.query("SELECT document_id FROM document_events WHERE project_id = $1 AND collection_id = $2 AND kind = 'created'", [t.owner.project, c]);
    expect(events.rows.map((r) => r.document_id).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `e${i}`).sort());
    const info = await t.server.request("/api/info/", { project: t.owner.project, session: t.owner.session });
    const { rows } = await t.db.query("SELECT coalesce(sum(octet_length(data::text)), 0)::bigint AS n FROM documents WHERE project_id = $1", [t.owner.project]);
    expect(info.body.status.data_size).toBe(Number(rows[0].n));
  });

  it("mode=upsert replaces existing ids (rows of one `_id` in their order), creates the rest; mode=create is the default", async () => {
    const c = "ups";
    await t.server.request(docs(c), { ...as(), json: { _id: "u1", v: 0, gone: true } });
    const body = ['{"_id":"u1","v":1}', '{"_id":"u2","v":1}', '{"_id":"u2","v":2}', '{"v":9}'].join("\n");
    const res = await importBody(c, body, "?mode=upsert");
    expect(res.body).toEqual({ created: 2, updated: 2, failed: 0, errors: [] });
    expect((await t.server.request(`${docs(c)}u1/`, as())).body).toEqual({ _id: "u1", v: 1 });
    expect((await t.server.request(`${docs(c)}u2/`, as())).body).toEqual({ _id: "u2", v: 2 });
    const again = await importBody(c, '{"_id":"u1","v":5}');
    expect(again.body).toMatchObject({ created: 0, failed: 1, errors: [{ row: 1, _id: "u1" }] });
    expect((await t.server.request(`/api/collections/${c}/`, as())).body.documents_count).toBe(3);
  });

  it("CSV: values typed by the schema, empty cells absent, quoted line breaks, a record of the wrong width is a row error", async () => {
    const c = "csvi";
    await schema(c, { n: { type: "integer" }, x: { type: "number" }, ok: { type: "boolean" }, tags: { type: "array" }, o: { type: "object" }, s: { type: "string" } });
    const csv = '\ufeff_id,n,x,ok,tags,o,s\r\n1,42,-1.5,TRUE,"[""a""]","{""k"":1}","a, ""b""\nc"\r\n2,,,,,,\r\n3,4.5,1,true,[],{},s\r\n4,1\r\n,7,,,,,gen\r\n';
    const res = await importBody(c, csv, "", { "content-type": "text/csv" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.created).toBe(3);
    expect(res.body.failed).toBe(2);
    expect(res.body.errors).toMatchObject([
      { row: 3, _id: "3", message: "Validation error", errors: [{ property: "n" }] },
      { row: 4, _id: "4", message: "The record has 2 fields, the header 7" },
    ]);
    expect((await t.server.request(`${docs(c)}1/`, as())).body).toEqual({ _id: "1", n: 42, x: -1.5, ok: true, tags: ["a"], o: { k: 1 }, s: 'a, "b"\nc' });
    expect((await t.server.request(`${docs(c)}2/`, as())).body).toEqual({ _id: "2" });
    const generated = await t.server.request(`${docs(c)}?filter=${encodeURIComponent('{"s":"gen"}')}`, as());
    expect(generated.body.items[0]).toMatchObject({ n: 7 });
    // What CSV export writes, CSV import reads back the same.
    const out = await exported(c, "?format=csv");
    const back = await importBody("csvi-copy", out.text, "?format=csv");
    expect(back.body).toMatchObject({ created: 3, failed: 0 });
    await schema("csvi-copy2", { n: { type: "integer" }, x: { type: "number" }, ok: { type: "boolean" }, tags: { type: "array" }, o: { type: "object" }, s: { type: "string" } });
    expect((await importBody("csvi-copy2", out.text, "?format=csv")).body).toMatchObject({ created: 3, failed: 0 });
    expect(lines((await exported("csvi-copy2")).text)).toEqual(lines((await exported(c)).text));
  });

  it("a JSON Lines export imported into a fresh collection is the same collection", async () => {
    const source = (await exported("ex")).text;
    expect((await importBody("ex-copy", source)).body).toMatchObject({ created: 2, failed: 0 });
    expect((await exported("ex-copy")).text).toBe(source);
  });

  it("a CSV header that cannot name properties is a 400 before anything is written", async () => {
    for (const header of ["a,,b", "a,a", "__proto__"]) {
      const res = await importBody("csvh", `${header}\r\n1,2,3\r\n`, "?format=csv");
      expect(res.status, header).toBe(400);
      expect(res.body.message).toMatch(/CSV header/);
    }
    expect((await exported("csvh")).status).toBe(404);
  });

  it("errors: bad format or mode 400, multipart 415, system collections 404, bad id 400, missing permissions 403", async () => {
    expect((await importBody("imp", "{}", "?format=xml")).status).toBe(400);
    expect((await importBody("imp", "{}", "?mode=replace")).body).toEqual({ message: "mode must be one of create, upsert" });
    expect((await importBody("imp", "{}", "", { "content-type": "multipart/form-data; boundary=x" })).status).toBe(415);
    for (const system of ["_files", "_users", "_tokens"]) expect((await importBody(system, "{}")).status).toBe(404);
    expect((await importBody("bad%20id", "{}")).status).toBe(400);
    const reader = await createToken(t.server, t.owner.session, t.owner.project, { allow: { read: ["perm"] } });
    expect((await importBody("perm", "{}", "", {}, reader)).status).toBe(403);
    const writer = await createToken(t.server, t.owner.session, t.owner.project, { allow: { write: ["perm"] } });
    expect((await importBody("perm", '{"_id":"p1"}', "", {}, writer)).body).toMatchObject({ created: 1 });
    const refused = await importBody("perm", '{"_id":"p1"}', "?mode=upsert", {}, writer);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/update/);
  });

  it("an empty body imports nothing; a missing collection is created like POST documents does", async () => {
    expect((await importBody("fresh", "")).body).toEqual({ created: 0, updated: 0, failed: 0, errors: [] });
    expect((await importBody("fresh", '{"a":1}\n')).body).toMatchObject({ created: 1 });
    expect((await t.server.request("/api/collections/fresh/", as())).body.documents_count).toBe(1);
  });

  it("lists at most 1,000 row errors, then says so; `failed` counts them all", async () => {
    const res = await importBody("many", Array.from({ length: 1200 }, () => "nope").join("\n"));
    expect(res.body.failed).toBe(1200);
    expect(res.body.errors.length).toBe(1000);
    expect(res.body.errors_truncated).toBe(true);
    expect(res.body.errors[999].row).toBe(1000);
  });

  it("over the upload size limit: 413 before anything when declared, else when crossed (rows before it are kept)", async () => {
    process.env.ARCA_MAX_FILE_SIZE = "2000";
    resetConfig();
    try {
      const body = Array.from({ length: 100 }, (_, i) => JSON.stringify({ _id: `s${String(i).padStart(3, "0")}`, v: "y".repeat(20) })).join("\n");
      const declared = await importBody("sized", body);
      expect(declared.status).toBe(413);
      expect(declared.body.message).toMatch(/too large/);
      expect((await exported("sized")).status).toBe(404);

      const streamed = await chunkedImport("sized", body.match(/[^]{1,200}/g)!);
      expect(streamed.status).toBe(413);
      expect(streamed.body.message).toMatch(/the import stopped there, after \d+ created/);
      const kept = lines((await exported("sized")).text).length;
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(100);
      expect(streamed.body.message).toContain(`after ${kept} created`);
    } finally {
      delete process.env.ARCA_MAX_FILE_SIZE;
      resetConfig();
    }
  });

  it("a line longer than the JSON body limit stops the import with 413", async () => {
    const line = JSON.stringify({ big: "z".repeat(16 * 1024 * 1024 + 10) });
    const res = await importBody("huge", `{"_id":"first"}\n${line}\n{"_id":"never"}`);
    expect(res.status).toBe(413);
    expect(res.body.message).toMatch(/Line 2 is longer than/);
    expect(lines((await exported("huge")).text).map((d) => d._id)).toEqual(["first"]);
  });
});

/** A body sent in chunks without Content-Length (as a browser streams a file of unknown size). */
function chunkedImport(c: string, chunks: string[]): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: t.server.port, path: `/api/collections/${c}/import/`, method: "POST", agent: false, headers: { "x-project": t.owner.project, authorization: `Token ${t.owner.token}`, "content-type": "application/x-ndjson", "transfer-encoding": "chunked" } },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (p) => parts.push(p));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString("utf8")) }));
      },
    );
    req.on("error", reject);
    (async () => {
      for (const chunk of chunks) {
        if (req.destroyed) return;
        req.write(chunk);
        await new Promise((r) => setTimeout(r, 2));
      }
      req.end();
    })();
  });
}

