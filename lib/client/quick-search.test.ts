import { describe, expect, it } from "vitest";
import { escapeRegex, QUICK_SEARCH_FIELDS, quickSearchFields, quickSearchFilter } from "./quick-search";

describe("quick search", () => {
  it("escapes every regex metacharacter, so the text matches as typed", () => {
    const typed = "a.b*c+d?e^f$g{h}i(j)k|l[m]n\\o/p";
    const pattern = escapeRegex(typed);
    expect(new RegExp(pattern).test(typed)).toBe(true);
    expect(new RegExp(`^${pattern}$`).test(typed)).toBe(true);
    expect(new RegExp(escapeRegex("a.b")).test("axb")).toBe(false);
    expect(escapeRegex("plain words")).toBe("plain words");
  });

  it("looks at _id and the top-level string properties in position order, at most the limit", () => {
    const schema = {
      properties: {
        year: { type: "integer" },
        title: { type: "string", position: 2 },
        author: { type: "string", position: 1 },
        nick: { type: ["string", "null"] },
        tags: { type: "array" },
        meta: { type: "object", properties: { note: { type: "string" } } },
        either: { type: ["string", "number"] },
      },
    };
    expect(quickSearchFields(schema)).toEqual(["_id", "author", "title", "nick"]);
    expect(quickSearchFields(null)).toEqual(["_id"]);
    expect(quickSearchFields({ properties: [] })).toEqual(["_id"]);
    const many = { properties: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`s${i}`, { type: "string" }])) };
    expect(quickSearchFields(many)).toHaveLength(QUICK_SEARCH_FIELDS + 1);
  });

  it("builds $or of case-insensitive regexes, joined with the table's filter by $and", () => {
    expect(quickSearchFilter("  ", ["_id"], { a: 1 })).toEqual({ a: 1 });
    expect(quickSearchFilter("", ["_id"])).toBeUndefined();
    expect(quickSearchFilter("Dune (1965)", ["_id", "title"])).toEqual({
      $or: [{ _id: { $regex: "Dune \\(1965\\)", $options: "i" } }, { title: { $regex: "Dune \\(1965\\)", $options: "i" } }],
    });
    expect(quickSearchFilter("x", ["_id"], { year: 1 })).toEqual({ $and: [{ year: 1 }, { $or: [{ _id: { $regex: "x", $options: "i" } }] }] });
    expect(quickSearchFilter("x", ["_id"], {})).toEqual({ $or: [{ _id: { $regex: "x", $options: "i" } }] });
  });
});
