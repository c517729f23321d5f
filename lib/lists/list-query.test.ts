import { describe, expect, it } from "vitest";
import { parseSort, readListQuery } from "./list-query";

describe("parseSort", () => {
  it.each([
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
    // `+name` arrives as " name" when a client forgets to encode the plus; both mean ascending.
    [" name , +age", [{ path: ["name"], descending: false }, { path: ["age"], descending: false }, { path: ["_id"], descending: false }]],
  ])("%j", (param, keys) => {
    expect(parseSort(param)).toEqual(keys);
  });

  it("refuses empty path segments, hostile names and too many keys", () => {
    expect(() => parseSort("a..b")).toThrow("Malformed sort key: a..b");
    expect(() => parseSort("-")).toThrow("Malformed sort key: -");
    expect(() => parseSort("a.__proto__")).toThrow(/__proto__/);
    expect(() => parseSort(Array.from({ length: 33 }, (_, i) => `k${i}`).join(","))).toThrow("sort takes at most 32 keys");
    expect(parseSort(Array.from({ length: 32 }, (_, i) => `k${i}`).join(","))).toHaveLength(33);
  });
});

describe("readListQuery", () => {
  it("defaults, caps per_page at 1000, and lets the body's filter and text win", () => {
    const query = readListQuery(new URLSearchParams("per_page=5000&filter=%7B%22a%22%3A1%7D&text=url"), { filter: { b: 2 }, text: " body " });
    expect(query).toMatchObject({ page: 1, perPage: 1000, filter: { b: 2 }, text: "body" });
  });

  it("takes page and per_page from a find body too (the URL's win), as numbers or digits", () => {
    expect(readListQuery(new URLSearchParams(""), { page: 2, per_page: "3" })).toMatchObject({ page: 2, perPage: 3 });
    expect(readListQuery(new URLSearchParams("page=4"), { page: 2, per_page: 3 })).toMatchObject({ page: 4, perPage: 3 });
    for (const page of [0, 1.5, -1, "x", true, [2]]) expect(() => readListQuery(new URLSearchParams(""), { page }), String(page)).toThrow("page must be a positive whole number");
    for (const text of [{ $search: "a" }, ["a"], 1]) expect(() => readListQuery(new URLSearchParams(""), { text })).toThrow("text must be a string");
  });

  it.each([
    ["page=0", "page must be a positive whole number"],
    ["per_page=1.5", "per_page must be a positive whole number"],
    ["page=0x10", "page must be a positive whole number"],
    ["page=1e3", "page must be a positive whole number"],
    ["per_page=%207", "per_page must be a positive whole number"],
    ["filter=%7B", "Malformed JSON in filter"],
    ["filter=%5B1%5D", "filter must be a JSON object"],
    ["fields=a..b", "Malformed field: a..b"],
  ])("%s: 400 %s", (params, message) => {
    expect(() => readListQuery(new URLSearchParams(params))).toThrow(message);
  });
});
