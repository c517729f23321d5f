import { describe, expect, it } from "vitest";
import { raw } from "@/lib/db/sql";
import { compileSort, parseSort } from "./compile-sort";

describe("parseSort", () => {
  it.each([
    [undefined, [{ path: ["_id"], descending: false }]],
    ["", [{ path: ["_id"], descending: false }]],
    ["-name", [{ path: ["name"], descending: true }, { path: ["_id"], descending: false }]],
    ["-_id", [{ path: ["_id"], descending: true }]],
    [
      "_id,-name,a.b",
      [
        { path: ["_id"], descending: false },
        { path: ["name"], descending: true },
        { path: ["a", "b"], descending: false },
      ],
    ],
    [" name , +age", [{ path: ["name"], descending: false }, { path: ["age"], descending: false }, { path: ["_id"], descending: false }]],
  ])("%j", (param, keys) => {
    expect(parseSort(param)).toEqual(keys);
  });

  it("refuses empty path segments", () => {
    expect(() => parseSort("a..b")).toThrow('Invalid sort key: "a..b"');
    expect(() => parseSort("-")).toThrow();
  });
});

describe("compileSort", () => {
  it("orders by path expressions, missing values first, _id last", () => {
    const { text, values } = compileSort("-name,a.b", raw("d.data")).toQuery();
    expect(values).toEqual([]);
    expect(text).toBe(
      `(d.data #> '{"name"}'::text[]) DESC NULLS LAST, (d.data #> '{"a","b"}'::text[]) ASC NULLS FIRST, (d.data #> '{"_id"}'::text[]) ASC NULLS FIRST`,
    );
  });
});

describe("parseSort: hostile keys", () => {
  it("refuses __proto__ segments and more than 32 keys", () => {
    expect(() => parseSort("a.__proto__")).toThrow(/__proto__/);
    expect(() => parseSort(Array.from({ length: 33 }, (_, i) => `k${i}`).join(","))).toThrow("sort takes at most 32 keys");
    expect(parseSort(Array.from({ length: 32 }, (_, i) => `k${i}`).join(","))).toHaveLength(33);
  });
});
