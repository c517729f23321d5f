import { describe, expect, it } from "vitest";
import { buildFilter, literal } from "./filter-builder";

describe("filter builder", () => {
  it("reads typed values as JSON literals or text", () => {
    expect(literal("1965")).toBe(1965);
    expect(literal("-2.5")).toBe(-2.5);
    expect(literal("true")).toBe(true);
    expect(literal("null")).toBe(null);
    expect(literal('"1965"')).toBe("1965");
    expect(literal(" Dune ")).toBe("Dune");
    expect(literal('"bad \\q"')).toBe('"bad \\q"');
  });

  it("writes one condition per property, bare values for equality", () => {
    expect(
      buildFilter([
        { property: "title", operator: "$eq", value: "Dune" },
        { property: "year", operator: "$gte", value: "1960" },
        { property: "tags", operator: "$in", value: "sf, classic ,,1" },
        { property: "cover", operator: "$exists", value: "false" },
        { property: "summary", operator: "$regex", value: "^a" },
        { property: " ", operator: "$eq", value: "skipped" },
      ]),
    ).toEqual({ title: "Dune", year: { $gte: 1960 }, tags: { $in: ["sf", "classic", 1] }, cover: { $exists: false }, summary: { $regex: "^a", $options: "i" } });
  });

  it("joins a property named twice with $and", () => {
    expect(
      buildFilter([
        { property: "year", operator: "$gte", value: "1960" },
        { property: "year", operator: "$lt", value: "1970" },
      ]),
    ).toEqual({ $and: [{ year: { $gte: 1960 } }, { year: { $lt: 1970 } }] });
  });

  it("is empty without rows", () => {
    expect(buildFilter([])).toEqual({});
  });
});
