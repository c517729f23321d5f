import { describe, expect, it } from "vitest";
import { cellText, checkSchema, documentColumns, documentEdit, fileProperties, mergePatchDiff, parseFilter, parseJsonObject, previewKind, schemaColumns } from "./json-editing";

describe("parseJsonObject", () => {
  it("accepts objects and names where parsing stopped", () => {
    expect(parseJsonObject('{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    const bad = parseJsonObject('{\n  "a": 1,\n}');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/^Invalid JSON at line 3, column 1/);
    expect(parseJsonObject("[1]")).toEqual({ ok: false, error: "The value must be a JSON object ({ ... })." });
    expect(parseJsonObject("  ")).toEqual({ ok: false, error: "Empty: type a JSON object." });
  });
});

describe("checkSchema", () => {
  it("wants an object schema with known property types", () => {
    expect(checkSchema({ type: "object", properties: { title: { type: "string", required: true }, when: { type: "datetime" } } })).toEqual([]);
    expect(checkSchema({ type: "array" })).toEqual(['A collection schema describes documents: "type" must be "object".']);
    expect(checkSchema({ properties: [] })).toEqual(['"properties" must be an object of property schemas.']);
    expect(checkSchema({ properties: { a: { type: "strin" }, b: 3, c: { type: "embed" } } })).toEqual([
      'a: unknown type "strin" (use string, number, integer, boolean, object, array, null, file, datetime or embed).',
      'b: a property must be a schema object, e.g. {"type": "string"}.',
      'c: an embed needs "collection" (and optionally "field").',
    ]);
    expect(checkSchema({ properties: { meta: { type: "object", properties: { pages: { type: "int" } } } } })[0]).toMatch(/^meta\.pages: unknown type/);
  });
});

describe("columns", () => {
  it("orders schema properties by position, then as written", () => {
    const schema = { properties: { body: { type: "string" }, title: { type: "string", position: 1 }, year: { type: "integer", position: 2 } } };
    expect(schemaColumns(schema)).toEqual(["title", "year", "body"]);
    expect(documentColumns(schema, [{ _id: "a", other: 1 }])).toEqual(["_id", "title", "year", "body"]);
  });
  it("falls back to the documents' keys", () => {
    expect(documentColumns(null, [{ _id: "a", x: 1 }, { _id: "b", y: 2, x: 3 }])).toEqual(["_id", "x", "y"]);
  });
  it("finds file properties", () => {
    expect(fileProperties({ properties: { cover: { type: "file" }, pics: { type: "array", items: { type: "file" } }, meta: { properties: { doc: { type: "file" } } }, t: { type: "string" } } })).toEqual([
      "cover",
      "pics",
      "meta.doc",
    ]);
  });
});

describe("mergePatchDiff", () => {
  it("sends only what changed, null for what went", () => {
    const file = { _id: "f", name: "a.png", md5: "x", content_type: "image/png", size: 1 };
    const before = { _id: "d", title: "A", meta: { pages: 1, lang: "en" }, cover: file, gone: 1 };
    const after = { _id: "d", title: "B", meta: { pages: 1 }, cover: file, tags: ["x"] };
    expect(mergePatchDiff(before, after)).toEqual({ gone: null, title: "B", meta: { lang: null }, tags: ["x"] });
    expect(mergePatchDiff(before, before)).toEqual({});
  });
});

describe("documentEdit", () => {
  const before = { _id: "d", title: "A", n: null, meta: { pages: 1, lang: "en" }, tags: ["x"] };

  it("a merge patch of what changed, though the document holds nulls elsewhere (a whole PUT overwrote others' changes)", () => {
    expect(documentEdit(before, { ...before, title: "B" })).toEqual({ kind: "merge-patch", patch: { title: "B" } });
    expect(documentEdit(before, { _id: "d", title: "A", n: null, meta: { pages: 1 } })).toEqual({ kind: "merge-patch", patch: { tags: null, meta: { lang: null } } });
    expect(documentEdit(before, before)).toBeUndefined();
  });

  it("the changed top-level keys whole when a changed value keeps a null", () => {
    expect(documentEdit(before, { ...before, title: null })).toEqual({ kind: "top-level", patch: { title: null } });
    expect(documentEdit(before, { ...before, meta: { pages: 1, lang: null }, tags: ["y"] })).toEqual({ kind: "top-level", patch: { meta: { pages: 1, lang: null }, tags: ["y"] } });
  });

  it("the whole document when a top-level key went and a null is kept", () => {
    const after = { _id: "d", title: null, n: null, meta: { pages: 1, lang: "en" } };
    expect(documentEdit(before, after)).toEqual({ kind: "whole", document: after });
  });
});

describe("filters, cells, previews", () => {
  it("reads the filter box", () => {
    expect(parseFilter("")).toEqual({ ok: true, value: undefined });
    expect(parseFilter('{"year": {"$gt": 2000}}')).toEqual({ ok: true, value: { year: { $gt: 2000 } } });
    expect(parseFilter("year > 2000").ok).toBe(false);
  });
  it("shortens cells and names files", () => {
    expect(cellText("x".repeat(100), 10)).toBe(`${"x".repeat(9)}…`);
    expect(cellText({ _id: "f", name: "a.png", md5: "m", content_type: "image/png", size: 1 })).toBe("📎 a.png");
    expect(cellText({ a: 1 })).toBe('{"a":1}');
    expect(cellText(undefined)).toBe("");
  });
  it("previews passive types only", () => {
    expect(previewKind("image/png")).toBe("image");
    expect(previewKind("image/svg+xml")).toBeUndefined();
    expect(previewKind("text/html")).toBeUndefined();
    expect(previewKind("application/pdf")).toBe("pdf");
    expect(previewKind("text/plain; charset=utf-8")).toBe("text");
    expect(previewKind("video/mp4")).toBe("video");
  });
});
