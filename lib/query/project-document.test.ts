import { describe, expect, it } from "vitest";
import { projectDocument } from "./project-document";
import type { Json } from "./types";

const doc: { [key: string]: Json } = { _id: "d1", a: 1, b: { c: 2, d: 3 }, list: [{ x: 1, y: 2 }, { x: 3 }, 4], e: "e" };

describe("projectDocument", () => {
  it.each([
    [{}, doc],
    [{ fields: "a,b.c" }, { _id: "d1", a: 1, b: { c: 2 } }],
    [{ fields: ["e"] }, { _id: "d1", e: "e" }],
    [{ fields: "list.x" }, { _id: "d1", list: [{ x: 1 }, { x: 3 }] }],
    [{ fields: "list.x,list.y" }, { _id: "d1", list: [{ x: 1, y: 2 }, { x: 3 }] }],
    [{ fields: "missing" }, { _id: "d1" }],
    [{ fields_exclude: "b.d,list.y,e" }, { _id: "d1", a: 1, b: { c: 2 }, list: [{ x: 1 }, { x: 3 }, 4] }],
    [{ fields_exclude: "_id" }, { a: 1, b: { c: 2, d: 3 }, list: doc.list as Json, e: "e" }],
    [{ fields: "a", fields_exclude: "_id" }, { a: 1 }],
  ])("%j", (projection, expected) => {
    expect(projectDocument(doc, projection)).toEqual(expected);
  });

  it("never changes the stored document", () => {
    const copy = structuredClone(doc);
    projectDocument(copy, { fields_exclude: "b.c" });
    projectDocument(copy, { fields: "b.c" });
    expect(copy).toEqual(doc);
  });
});
