import { describe, expect, it } from "vitest";
import { checkFileRecords, FILE_RECORD_CHANGED, NOT_A_FILE_OF_THIS_DOCUMENT } from "./document-file-records";
import { fileRecordsIn, type FileRecord } from "./file-record";

const record = (id: string): FileRecord => ({
  _id: id,
  collection_id: "c",
  content_type: "text/plain",
  date_created: "2026-01-01T00:00:00.00Z",
  document_id: "d",
  last_access: "2026-01-01T00:00:00.00Z",
  md5: "0".repeat(32),
  name: `${id}.txt`,
  size: 3,
});

describe("checkFileRecords", () => {
  it("keeps own records anywhere (arrays, nested, moved), restoring the stored last_access", () => {
    const a = record("a");
    const b = record("b");
    const doc = { _id: "d", list: [{ ...a, last_access: "2099-01-01T00:00:00.00Z" }], deep: { x: [[b]] } };
    expect(checkFileRecords(doc, [a, b], [["list", "*"]])).toEqual([]);
    expect(doc.list[0]).toEqual(a);
    expect(doc.deep.x[0][0]).toEqual(b);
  });

  it("takes a copy read without last_access (fields_exclude) and stores the whole record", () => {
    const a = record("a");
    const { last_access: _dropped, ...withoutAccess } = a;
    const doc = { _id: "d", photo: withoutAccess };
    expect(checkFileRecords(doc, [a], [["photo"]])).toEqual([]);
    expect(doc.photo).toEqual(a);
  });

  it("names each changed, partial, extended or foreign record by its path", () => {
    const a = record("a");
    const doc = {
      _id: "d",
      photos: [{ ...a, size: 4 }],
      partial: { _id: "a", name: "a.txt" },
      extended: { ...a, extra: 1 },
      foreign: { nested: record("zzz") },
    };
    expect(checkFileRecords(doc, [a], [])).toEqual([
      { property: "photos.0", message: FILE_RECORD_CHANGED },
      { property: "partial", message: FILE_RECORD_CHANGED },
      { property: "extended", message: FILE_RECORD_CHANGED },
      { property: "foreign.nested", message: NOT_A_FILE_OF_THIS_DOCUMENT },
    ]);
  });

  it("a schema file property holds only an own record or null; other types are the schema's to refuse", () => {
    const a = record("a");
    const doc = { _id: "d", photo: { any: "object" }, none: null, text: "str", gallery: [a, { x: 1 }] };
    expect(checkFileRecords(doc, [a], [["photo"], ["none"], ["text"], ["gallery", "*"], ["absent"]])).toEqual([
      { property: "photo", message: NOT_A_FILE_OF_THIS_DOCUMENT },
      { property: "gallery.1", message: NOT_A_FILE_OF_THIS_DOCUMENT },
    ]);
  });

  it("a document whose own _id equals a file's id is not taken for a record; __proto__ keys stay own keys", () => {
    const a = record("a");
    const doc = JSON.parse(`{"_id":"a","__proto__":{"f":${JSON.stringify({ ...a, last_access: "x" })}}}`);
    expect(checkFileRecords(doc, [a], [])).toEqual([]);
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    expect(Object.hasOwn(doc, "__proto__")).toBe(true);
    expect(doc["__proto__"].f).toEqual(a);
  });

  it("fileRecordsIn finds the records a stored document holds", () => {
    expect(fileRecordsIn({ _id: "d", a: [record("x")], b: { c: record("y") }, n: 1 }).map((r) => r._id)).toEqual(["x", "y"]);
  });
});
