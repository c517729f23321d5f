import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { apiSuite } from "../../testing/api-suite";

// Processors (CONTRACT §7): schema checks, the text kinds on real inputs, when they run, process_only.
const t = apiSuite();
const as = (extra: Record<string, unknown> = {}) => ({ project: t.owner.project, token: t.owner.token, ...extra });
const docs = (c: string) => `/api/collections/${c}/documents/`;
let counter = 0;
const unique = (prefix: string) => `${prefix}${++counter}${Date.now().toString(36)}`;
const md5 = (text: string) => createHash("md5").update(text).digest("hex");

async function collectionWith(properties: Record<string, unknown>, additional = true): Promise<string> {
  const id = unique("proc");
  const res = await t.server.request(`/api/collections/${id}/`, as({ json: { schema: { type: "object", properties, additionalProperties: additional } } }));
  expect(res.status, res.text).toBe(201);
  return id;
}

async function saveSchema(properties: Record<string, unknown>) {
  return t.server.request(`/api/collections/${unique("bad")}/`, as({ json: { schema: { type: "object", properties } } }));
}

describe("processors in a schema, checked when it is saved", () => {
  it("refuses an unknown kind, a missing required argument, a bad argument and an array property, naming the property", async () => {
    const unknown = await saveSchema({ a: { type: "string", processors: [{ name: "nope" }] } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual([{ property: "a", message: 'unknown processor kind "nope"' }]);
    // The last processor writes the property: a value its type never takes is refused at save.
    const md5OnFile = await saveSchema({ a: { type: "string" }, f: { type: "file", processors: [{ name: "md5", in: { text: { property: "a" } } }] } });
    expect(md5OnFile.body.errors).toEqual([{ property: "f", message: 'md5 writes a string, which a property of type "file" never holds' }]);
    const resizeOnText = await saveSchema({ p: { type: "file" }, t: { type: ["string", "null"], processors: [{ name: "resize", in: { original_image: { property: "p" }, size: { value: [10, 10] } } }] } });
    expect(resizeOnText.body.errors).toEqual([{ property: "t", message: 'resize writes a file, which a property of type ["string","null"] never holds' }]);
    for (const [type, name] of [["integer", "sentiment"], ["datetime", "template"], [["number", "string"], "random"], ["object", "readability"]] as const) {
      const input = name === "template" ? { template_string: { value: "2024-01-01" } } : name === "random" ? {} : { text: { property: "a" } };
      const fine = await saveSchema({ a: { type: "string" }, v: { type, processors: [{ name, in: input }] } });
      expect(fine.status, `${name} into ${JSON.stringify(type)}: ${fine.text}`).toBe(201);
    }
    // `random`'s output follows its literal random_type: a string by default and for uuid, a number for integer.
    const randomCases = [
      ["string", { random_type: { value: "integer" } }, "a number"],
      ["integer", {}, "a string"],
      ["integer", { random_type: { value: "uuid" } }, "a string"],
    ] as const;
    for (const [type, input, what] of randomCases) {
      const refused = await saveSchema({ v: { type, processors: [{ name: "random", in: input }] } });
      expect(refused.status, JSON.stringify(input)).toBe(422);
      expect(refused.body.errors).toEqual([{ property: "v", message: `random writes ${what}, which a property of type "${type}" never holds` }]);
    }
    expect((await saveSchema({ v: { type: "integer", processors: [{ name: "random", in: { random_type: { value: "integer" } } }] } })).status).toBe(201);
    const unnamed = await saveSchema({ a: { type: "string", processors: [{}] } });
    expect(unnamed.body.errors).toEqual([{ property: "a", message: 'processor 1 needs a "name" (its kind)' }]);

    const missing = await saveSchema({ b: { type: "string", processors: [{ name: "template", in: {} }] } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0]).toMatchObject({ property: "b" });
    expect(missing.body.errors[0].message).toContain("template_string");

    const badArg = await saveSchema({ c: { type: "string", processors: [{ name: "md5", in: { text: "plain" } }] } });
    expect(badArg.status).toBe(422);
    expect(badArg.body.errors[0].property).toBe("c");

    const unknownArg = await saveSchema({ c: { type: "string", processors: [{ name: "md5", in: { words: { value: "x" } } }] } });
    expect(unknownArg.status).toBe(422);
    expect(unknownArg.body.errors[0].message).toContain('unknown argument "words"');

    const literalFile = await saveSchema({ p: { type: "file", processors: [{ name: "watermark", in: { watermark_image: { value: "http://x/y.png" } } }] } });
    expect(literalFile.status).toBe(422);
    expect(literalFile.body.errors[0]).toMatchObject({ property: "p" });
    expect(literalFile.body.errors[0].message).toContain("watermark_image");

    // Literals of the wrong kind: refused when saved, not on every later write.
    for (const [processor, arg] of [
      [{ name: "resize", in: { original_image: { value: "http://x/y.png" }, size: { value: [10, 10] } } }, "original_image"],
      [{ name: "markdown", in: { text: { value: { a: 1 } } } }, "text"],
      [{ name: "html_to_text", in: { html: { value: [1] } } }, "html"],
      [{ name: "google_translate", in: { text: { value: "hi" }, to: { value: 5 }, api_key: { value: "k" } } }, "to"],
      [{ name: "readability_com", in: { url: { value: "not a url" } } }, "url"],
    ] as const) {
      const res = await saveSchema({ p: { type: "string", processors: [processor] } });
      expect(res.status, `${processor.name}: ${res.text}`).toBe(422);
      expect(res.body.errors[0].message).toContain(`"${arg}"`);
    }
    // md5 takes any JSON value as its text.
    expect((await saveSchema({ p: { type: "string", processors: [{ name: "md5", in: { text: { value: { a: 1 } } } }] } })).status).toBe(201);

    // Handlebars' built-in `log` would write document values to the server's console.
    const log = await saveSchema({ t: { type: "string", processors: [{ name: "template", in: { template_string: { value: "{{log x}}" } } }] } });
    expect(log.status).toBe(422);
    expect(log.body.errors[0].message).toContain("template_string");

    const onId = await saveSchema({ _id: { type: "string", processors: [{ name: "random", in: { length: { value: 100 } } }] } });
    expect(onId.status).toBe(422);
    expect(onId.body.errors).toEqual([{ property: "_id", message: "processors cannot run on _id" }]);

    const array = await saveSchema({ tags: { type: "array", items: { type: "string" }, processors: [{ name: "md5" }] } });
    expect(array.status).toBe(422);
    expect(array.body.errors).toEqual([{ property: "tags", message: "processors cannot run on an array property" }]);

    // An array reached through $ref or a combinator is an array all the same.
    const saveWhole = (schema: Record<string, unknown>) => t.server.request(`/api/collections/${unique("bad")}/`, as({ json: { schema } }));
    for (const tags of [
      { $ref: "#/definitions/list", processors: [{ name: "md5" }] },
      { anyOf: [{ type: "array" }, { type: "string" }], processors: [{ name: "md5" }] },
      { oneOf: [{ $ref: "#/definitions/list" }], processors: [{ name: "random" }] },
      { allOf: [{ type: ["array", "null"] }], processors: [{ name: "md5" }] },
    ]) {
      const res = await saveWhole({ type: "object", definitions: { list: { type: "array" } }, properties: { tags } });
      expect(res.status, JSON.stringify(tags)).toBe(422);
      expect(res.body.errors).toEqual([{ property: "tags", message: "processors cannot run on an array property" }]);
    }
    expect((await saveWhole({ type: "object", definitions: { text: { type: "string" } }, properties: { h: { $ref: "#/definitions/text", processors: [{ name: "md5" }] } } })).status).toBe(201);

    // Where processors would never run (the plan walks properties and items): 422 naming the place.
    for (const [a, where] of [
      [{ type: "string", anyOf: [{ processors: [{ name: "random" }] }] }, "schema.a.anyOf.0"],
      [{ type: "string", not: { processors: [{ name: "nope" }] } }, "schema.a.not"],
      [{ type: "object", additionalProperties: { type: "string", processors: [{ name: "random" }] } }, "schema.a.additionalProperties"],
    ] as const) {
      const res = await saveSchema({ a });
      expect(res.status, where).toBe(422);
      expect(res.body.errors.map((e: { property: string }) => e.property)).toContain(where);
    }

    const inItems = await saveSchema({ list: { type: "array", items: { type: "object", properties: { x: { type: "string", processors: [{ name: "md5" }] } } } } });
    expect(inItems.status).toBe(422);
    expect(inItems.body.errors[0].property).toBe("list.x");

    const watermarkUrl = await saveSchema({
      photo: { type: "file", processors: [{ name: "watermark", in: { watermark_image: { property: "logo" }, url: { value: "http://example.com/logo.png" } } }] },
    });
    expect(watermarkUrl.status).toBe(422);
    expect(watermarkUrl.body.errors[0]).toMatchObject({ property: "photo" });
    expect(watermarkUrl.body.errors[0].message).toContain("url");
  });

  it('refuses a cycle, direct or indirect, with "Recursion detected in processors"', async () => {
    const direct = await saveSchema({
      a: { type: "string", processors: [{ name: "md5", in: { text: { property: "b" } } }] },
      b: { type: "string", processors: [{ name: "md5", in: { text: { property: "a" } } }] },
    });
    expect(direct.status).toBe(422);
    expect(direct.body.message).toBe("Recursion detected in processors");

    const indirect = await saveSchema({
      a: { type: "string", processors: [{ name: "md5", in: { text: { property: "c" } } }] },
      b: { type: "string", processors: [{ name: "md5", in: { text: { property: "a" } } }] },
      c: { type: "string", processors: [{ name: "template", in: { template_string: { value: "{{x}}" }, context: { x: { property: "b" } } } }] },
    });
    expect(indirect.status).toBe(422);
    expect(indirect.body.message).toBe("Recursion detected in processors");

    // A PATCH of the collection that closes a loop, and the stored schema stays as it was.
    const id = await collectionWith({ a: { type: "string", processors: [{ name: "md5", in: { text: { property: "b" } } }] }, b: { type: "string" } });
    const res = await t.server.request(`/api/collections/${id}/`, as({ method: "PATCH", json: { schema: { properties: { b: { type: "string", processors: [{ name: "md5", in: { text: { property: "a" } } }] } } } } }));
    expect(res.status).toBe(422);
    expect((await t.server.request(`/api/collections/${id}/`, as())).body.schema.properties.b).toEqual({ type: "string" });
    expect(res.body.message).toBe("Recursion detected in processors");
  });
});

describe("text processors on real inputs", () => {
  it("random then md5 on one property stores the digest of a random string; chained in order", async () => {
    const c = await collectionWith({
      token: { type: "string", processors: [{ name: "random", in: { random_type: { value: "string" }, length: { value: 20 } } }, { name: "md5" }] },
      code: { type: "integer", processors: [{ name: "random", in: { random_type: { value: "integer" }, length: { value: 6 } } }] },
      uuid: { type: "string", processors: [{ name: "random", in: { random_type: { value: "uuid" } } }] },
    });
    const res = await t.server.request(docs(c), as({ json: { _id: "r1" } }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.token).toMatch(/^[0-9a-f]{32}$/);
    expect(String(res.body.code)).toMatch(/^[1-9]\d{5}$/);
    expect(res.body.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const stored = await t.server.request(`${docs(c)}r1/`, as());
    expect(stored.body).toEqual(res.body);
  });

  it("random integers of 15 digits and more (kept at 15, JSON's safe integers) and of one digit", async () => {
    const c = await collectionWith({
      long: { type: "integer", processors: [{ name: "random", in: { random_type: { value: "integer" }, length: { value: 20 } } }] },
      fifteen: { type: "integer", processors: [{ name: "random", in: { random_type: { value: "integer" }, length: { value: 15 } } }] },
      one: { type: "integer", processors: [{ name: "random", in: { random_type: { value: "integer" }, length: { value: 1 } } }] },
    });
    for (let i = 0; i < 5; i++) {
      const res = await t.server.request(docs(c), as({ json: {} }));
      expect(res.status, res.text).toBe(201);
      expect(String(res.body.long)).toMatch(/^[1-9]\d{14}$/);
      expect(String(res.body.fifteen)).toMatch(/^[1-9]\d{14}$/);
      expect(Number.isSafeInteger(res.body.long)).toBe(true);
      expect(String(res.body.one)).toMatch(/^\d$/);
    }
  });

  it("a processor on a nested property never replaces a parent the client sent that is no object (422)", async () => {
    const c = await collectionWith({ c: { type: "object", properties: { r: { type: "string", processors: [{ name: "random", in: { length: { value: 8 } } }] } } } });
    for (const value of ["just a string", [1, 2], 5]) {
      const res = await t.server.request(docs(c), as({ json: { _id: "q", c: value } }));
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors[0]).toEqual({ property: "c", message: "must be object" });
    }
    const fine = await t.server.request(docs(c), as({ json: { _id: "q", c: {} } }));
    expect(fine.status).toBe(201);
    expect(fine.body.c.r).toMatch(/^.{8}$/);
    expect((await t.server.request(docs(c), as({ json: { _id: "q2" } }))).body.c.r).toMatch(/^.{8}$/);
  });

  it("readability reads text without any HTML element as a page's body (no 500)", async () => {
    const c = await collectionWith({
      html: { type: "string" },
      page: { type: "object", additionalProperties: true, processors: [{ name: "readability", in: { text: { property: "html" } } }] },
    });
    for (const html of ["plain", ""]) {
      const res = await t.server.request(docs(c), as({ json: { html } }));
      expect(res.status, res.text).toBe(201);
      expect(res.body.page).toMatchObject({ title: "", short_title: "" });
    }
  });

  it("md5, template (with a nested context), markdown, html_to_text, readability, sentiment, local language detection", async () => {
    const article = `<html><head><title>Rivers of the North - Atlas</title></head><body><nav><a href="/">Home</a></nav>
      <article><h1>Rivers of the North</h1>${"<p>The northern rivers carry cold water from the mountains to the sea, through forests and wide valleys where few people live. </p>".repeat(8)}</article>
      <footer>Contact</footer><script>alert(1)</script></body></html>`;
    const c = await collectionWith({
      title: { type: "string" },
      body: { type: "string" },
      digest: { type: "string", processors: [{ name: "md5", in: { text: { property: "title" } } }] },
      greeting: {
        type: "string",
        processors: [{ name: "template", in: { template_string: { value: "Hello {{user.name}} from {{place}}! {{user.constructor}}{{__proto__}}" }, syntax: { value: "handlebars" }, context: { user: { name: { property: "title" } }, place: { value: "Arca" } } } }],
      },
      html: { type: "string", processors: [{ name: "markdown", in: { text: { property: "body" } } }] },
      plain: { type: "string", processors: [{ name: "html_to_text", in: { html: { value: "<html><head><title>Hello</title></head><body>World</body></html>" } } }] },
      page: { type: "object", additionalProperties: true, processors: [{ name: "readability", in: { text: { value: article } } }] },
      mood: { type: "number", processors: [{ name: "sentiment", in: { text: { value: "I love this wonderful, excellent place" } } }] },
      sad: { type: "number", processors: [{ name: "sentiment", in: { text: { value: "This is terrible, awful and bad" } } }] },
      lang: { type: "string", processors: [{ name: "google_detect_language", in: { text: { value: "Bonjour tout le monde, comment allez-vous aujourd'hui ?" } } }] },
      lang2: { type: "string", processors: [{ name: "yandex_detect_language", in: { text: { value: "Привет, как у тебя дела сегодня?" } } }] },
    });
    const res = await t.server.request(docs(c), as({ json: { title: "Ann", body: "**hello** <script>alert(1)</script> [x](javascript:alert(1)) <img src=x onerror=alert(1)>" } }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.digest).toBe(md5("Ann"));
    expect(res.body.greeting).toBe("Hello Ann from Arca! ");
    expect(res.body.html).toContain("<strong>hello</strong>");
    expect(res.body.html).not.toMatch(/script|onerror|javascript:/i);
    expect(res.body.plain).toBe("World");
    expect(res.body.page.title).toBe("Rivers of the North - Atlas");
    expect(res.body.page.short_title).toBe("Rivers of the North");
    expect(res.body.page.content).toContain("northern rivers");
    expect(res.body.page.content).not.toMatch(/script|Contact/);
    expect(res.body.mood).toBeGreaterThan(0);
    expect(res.body.sad).toBeLessThan(0);
    expect(res.body.lang).toBe("fr");
    expect(res.body.lang2).toBe("ru");

    const exact = await collectionWith({ html: { type: "string", processors: [{ name: "markdown" }] } });
    const md = await t.server.request(docs(exact), as({ json: { html: "**hello**" } }));
    expect(md.body.html).toBe("<p><strong>hello</strong></p>\n");
  });

  it("md5 of an object or array digests its JSON with keys sorted: equal values alike whatever the key order", async () => {
    const c = await collectionWith({
      meta: { type: "object", additionalProperties: true },
      digest: { type: "string", processors: [{ name: "md5", in: { text: { property: "meta" } } }] },
    });
    const a = await t.server.request(docs(c), as({ json: { _id: "a", meta: { b: 1, a: [{ y: 2, x: "é" }] } } }));
    const b = await t.server.request(docs(c), as({ json: { _id: "b", meta: { a: [{ x: "é", y: 2 }], b: 1 } } }));
    expect(a.status, a.text).toBe(201);
    expect(a.body.digest).toBe(md5('{"a":[{"x":"é","y":2}],"b":1}'));
    expect(b.body.digest).toBe(a.body.digest);
  });

  it("the source argument may be named `source` (CONTRACT §7), not both ways at once", async () => {
    const c = await collectionWith({ title: { type: "string" }, digest: { type: "string", processors: [{ name: "md5", in: { source: { property: "title" } } }] } });
    const res = await t.server.request(docs(c), as({ json: { title: "Ann" } }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.digest).toBe(md5("Ann"));
    const both = await saveSchema({ d: { type: "string", processors: [{ name: "md5", in: { source: { value: "a" }, text: { value: "b" } } }] } });
    expect(both.status).toBe(422);
    expect(both.body.errors[0].message).toBe('md5: "source" and "text" name the same argument');
  });

  it("html_to_text keeps headings' case and a table's cells apart", async () => {
    const html = "<h1>Title here</h1><p>Para <b>bold</b></p><table><tr><th>Name</th><th>Qty</th></tr><tr><td>Apple</td><td>3</td></tr></table>";
    const c = await collectionWith({ plain: { type: "string", processors: [{ name: "html_to_text", in: { html: { value: html } } }] } });
    const res = await t.server.request(docs(c), as({ json: {} }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.plain).toBe("Title here\n\nPara bold\n\nName    Qty\nApple   3");
  });

  it("runs when a write touches an input or creates the document, not otherwise", async () => {
    const c = await collectionWith({
      title: { type: "string" },
      note: { type: "string" },
      digest: { type: "string", processors: [{ name: "md5", in: { text: { property: "title" } } }] },
      stamp: { type: "string", processors: [{ name: "random", in: { length: { value: 12 } } }] },
      // Depends on digest's output: runs after it.
      both: { type: "string", processors: [{ name: "template", in: { template_string: { value: "{{d}}/{{t}}" }, context: { d: { property: "digest" }, t: { property: "title" } } } }] },
    });
    const created = await t.server.request(docs(c), as({ json: { _id: "d1", title: "one" } }));
    expect(created.status, created.text).toBe(201);
    expect(created.body.both).toBe(`${md5("one")}/one`);
    const stamp = created.body.stamp;

    // PATCH of another property: nothing re-runs.
    const patched = await t.server.request(`${docs(c)}d1/`, as({ method: "PATCH", json: { note: "x" } }));
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ digest: md5("one"), stamp, note: "x" });

    // PATCH of the input: its dependants re-run (digest, then both).
    const retitled = await t.server.request(`${docs(c)}d1/`, as({ method: "PATCH", json: { title: "two" } }));
    expect(retitled.body).toMatchObject({ digest: md5("two"), both: `${md5("two")}/two`, stamp });

    // Property PUT of the input.
    const put = await t.server.request(`${docs(c)}d1/title/`, as({ method: "PUT", json: "three" }));
    expect(put.status, put.text).toBe(200);
    const after = await t.server.request(`${docs(c)}d1/`, as());
    expect(after.body).toMatchObject({ title: "three", digest: md5("three"), stamp });

    // PUT (save) of the document as read: nothing touched, nothing re-runs.
    const saved = await t.server.request(`${docs(c)}d1/`, as({ method: "PUT", json: after.body }));
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual(after.body);

    // X-Action update (and upsert) run them per document.
    await t.server.request(docs(c), as({ json: { _id: "d2", title: "a" } }));
    const updated = await t.server.request(docs(c), as({ action: "update", json: { filter: {}, operation: { $set: { title: "same" } } } }));
    expect(updated.body).toEqual({ updated: 2 });
    for (const id of ["d1", "d2"]) expect((await t.server.request(`${docs(c)}${id}/`, as())).body.digest).toBe(md5("same"));
    const upserted = await t.server.request(docs(c), as({ action: "upsert", json: { filter: { _id: "d3" }, operation: { $set: { title: "new" } } } }));
    expect(upserted.status, upserted.text).toBe(200);
    expect((await t.server.request(`${docs(c)}d3/`, as())).body).toMatchObject({ digest: md5("new"), both: `${md5("new")}/new` });
  });

  it("process_only (query or X-Process-Only) runs only the named properties' processors; an empty PATCH re-runs one step", async () => {
    const c = await collectionWith({
      a: { type: "string", processors: [{ name: "random", in: { length: { value: 16 } } }] },
      b: { type: "string", processors: [{ name: "random", in: { length: { value: 16 } } }] },
    });
    const created = await t.server.request(docs(c), as({ json: { _id: "p1" } }));
    const { a, b } = created.body;
    const viaQuery = await t.server.request(`${docs(c)}p1/?process_only=a`, as({ method: "PATCH", json: {} }));
    expect(viaQuery.status, viaQuery.text).toBe(200);
    expect(viaQuery.body.a).not.toBe(a);
    expect(viaQuery.body.b).toBe(b);
    const viaHeader = await t.server.request(`${docs(c)}p1/`, as({ method: "PATCH", json: {}, headers: { "x-process-only": "b" } }));
    expect(viaHeader.body.a).toBe(viaQuery.body.a);
    expect(viaHeader.body.b).not.toBe(b);
    // On create: only the named ones run.
    const onlyA = await t.server.request(`${docs(c)}?process_only=a`, as({ json: { _id: "p2" } }));
    expect(onlyA.body.a).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(onlyA.body.b).toBeUndefined();
  });

  it("bad input is 422 naming the property and nothing is stored; text above 1 MiB is 422", async () => {
    const c = await collectionWith({
      title: { type: "string" },
      digest: { type: "string", processors: [{ name: "markdown", in: { text: { property: "title" } } }] },
    });
    const big = await t.server.request(docs(c), as({ json: { _id: "big", title: "x".repeat(1024 * 1024 + 1) } }));
    expect(big.status).toBe(422);
    expect(big.body.errors[0]).toMatchObject({ property: "digest" });
    expect(big.body.errors[0].message).toContain("1 MiB");
    const notText = await t.server.request(docs(c), as({ json: { _id: "obj", title: "ok", digest: "y" } }));
    expect(notText.status).toBe(201);
    const wrong = await t.server.request(`${docs(c)}obj/`, as({ method: "PATCH", json: { title: 42 } }));
    // 42 is accepted by markdown as text ("42") but fails the schema's string type for title.
    expect(wrong.status).toBe(422);
    expect((await t.server.request(`${docs(c)}big/`, as())).status).toBe(404);

    const tpl = await collectionWith({ data: { type: "object", additionalProperties: true }, out: { type: "string", processors: [{ name: "template", in: { template_string: { value: "{{#each data}}{{this}}{{/each}}" }, context: { data: { property: "data" } } } }] } });
    const tooBig = await t.server.request(docs(tpl), as({ json: { _id: "t", data: { a: "y".repeat(1024 * 1024 + 10) } } }));
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.errors[0].property).toBe("out");
    expect((await t.server.request(`${docs(tpl)}t/`, as())).status).toBe(404);

    // Nested {{#each}} over a document's arrays multiplies: bounded in iterations and in text, the
    // render stops with a 422 (it held the event loop for seconds), and a modest one still runs.
    const nested = await collectionWith({
      x: { type: "array" },
      out: { type: "string", processors: [{ name: "template", in: { template_string: { property: "t" }, context: { x: { property: "x" } } } }] },
      t: { type: "string" },
    });
    const x = Array.from({ length: 300 }, (_, i) => i);
    const loops = await t.server.request(docs(nested), as({ json: { _id: "n1", t: "{{#each x}}{{#each ../x}}{{#each ../../x}}{{/each}}{{/each}}{{/each}}", x } }));
    expect(loops.status).toBe(422);
    expect(loops.body.errors).toEqual([{ property: "out", message: "template: more than 100000 {{#each}} iterations" }]);
    const wide = await t.server.request(docs(nested), as({ json: { _id: "n2", t: `{{#each x}}{{#each ../x}}${"y".repeat(20)}{{/each}}{{/each}}`, x } }));
    expect(wide.status).toBe(422);
    expect(wide.body.errors).toEqual([{ property: "out", message: "template: the output is larger than 1 MiB" }]);
    const modest = await t.server.request(docs(nested), as({ json: { _id: "n3", t: "{{#each x}}{{#each ../x}}.{{/each}}{{/each}}", x: [1, 2, 3] } }));
    expect(modest.body.out).toBe(".........");
    expect((await t.server.request(`${docs(nested)}n1/`, as())).status).toBe(404);
    // Lookups that render nothing still cost: iterations times the template's {{...}} are bounded too.
    const lookups = await t.server.request(docs(nested), as({ json: { _id: "n4", t: `{{#each x}}${"{{q}}".repeat(1000)}{{/each}}`, x: Array.from({ length: 3000 }, (_, i) => i) } }));
    expect(lookups.status).toBe(422);
    expect(lookups.body.errors).toEqual([{ property: "out", message: "template: more than 2000000 steps ({{#each}} iterations times the template's {{...}})" }]);
    // And the template itself (compiled on the server's thread) is at most 10,000 characters, at save and from a document.
    const long = await t.server.request(docs(nested), as({ json: { _id: "n5", t: "a".repeat(10_001), x } }));
    expect(long.body.errors).toEqual([{ property: "out", message: "template: the template is longer than 10000 characters" }]);
    const saved = await t.server.request("/api/collections/long-template/", as({ method: "PUT", json: { schema: { type: "object", properties: { out: { type: "string", processors: [{ name: "template", in: { template_string: { value: "{{a}}".repeat(2001) } } }] } } } } }));
    expect(saved.status).toBe(422);
    expect(saved.body.errors[0].message).toContain("at most 10000 characters");
  });
});

describe("text processors off the event loop", () => {
  it("a parse that runs away is 502 at the time limit while other requests are answered; one nested too deeply is 422; the next one works", async () => {
    process.env.ARCA_PROCESSOR_TIMEOUT_MS = "1500";
    try {
      const c = await collectionWith({ s: { type: "string" }, html: { type: "string", processors: [{ name: "markdown", in: { text: { property: "s" } } }] } });
      const finished: string[] = [];
      // Emphasis runs cost marked far more than their size: ~20 s for this one.
      const runaway = t.server.request(docs(c), as({ json: { _id: "slow", s: "*a".repeat(150_000) } })).then((answer) => (finished.push("runaway"), answer));
      const meanwhile = await t.server.request("/api/health/");
      finished.push("health");
      expect(meanwhile.status).toBe(200);
      const slow = await runaway;
      expect(finished).toEqual(["health", "runaway"]);
      expect(slow.status).toBe(502);
      expect(slow.body).toEqual({ message: 'Processor markdown of property "html" failed: timed out' });
      expect((await t.server.request(`${docs(c)}slow/`, as())).status).toBe(404);

      const nested = await collectionWith({ h: { type: "string" }, text: { type: "string", processors: [{ name: "html_to_text", in: { html: { property: "h" } } }] } });
      process.env.ARCA_PROCESSOR_TIMEOUT_MS = "20000";
      const deep = await t.server.request(docs(nested), as({ json: { _id: "deep", h: "<div>".repeat(100_000) } }));
      expect(deep.status, deep.text).toBe(422);
      expect(deep.body.errors).toEqual([{ property: "text", message: "html_to_text: the input is nested too deeply" }]);

      const fine = await t.server.request(docs(c), as({ json: { _id: "fine", s: "*hello*" } }));
      expect(fine.status, fine.text).toBe(201);
      expect(fine.body.html).toBe("<p><em>hello</em></p>\n");
    } finally {
      delete process.env.ARCA_PROCESSOR_TIMEOUT_MS;
    }
  });
});
