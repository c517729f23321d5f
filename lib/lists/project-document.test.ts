import { describe, expect, it } from "vitest";
import { projectDocument } from "./project-document";

const doc = { _id: "1", name: "n", a: { b: 1, c: 2 }, list: [{ x: 1, y: 2 }, { x: 3 }], n: 5 };

describe("projectDocument", () => {
  it.each([
    [{ fields: ["name"] }, { _id: "1", name: "n" }],
    [{ fields: ["a.b"] }, { _id: "1", a: { b: 1 } }],
    [{ fields: ["list.x"] }, { _id: "1", list: [{ x: 1 }, { x: 3 }] }],
    [{ fields: ["name"], fields_exclude: ["_id"] }, { name: "n" }],
    [{ fields_exclude: ["a.c", "list", "n"] }, { _id: "1", name: "n", a: { b: 1 } }],
    [{}, doc],
    [{ fields: ["missing"] }, { _id: "1" }],
    [{ fields: ["n.deeper"] }, { _id: "1" }],
  ])("%j", (options, expected) => {
    expect(projectDocument(doc, options)).toEqual(expected);
  });

  it("does not change its input", () => {
    const copy = structuredClone(doc);
    projectDocument(doc, { fields_exclude: ["a.b"] });
    expect(doc).toEqual(copy);
  });
});
