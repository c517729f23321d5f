import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { applyUpdate } from "./apply-update";
import type { Json } from "./types";

const base = { _id: "d1", z: null, n: 5, s: "text", tags: ["a", "b"], o: { p: 1 }, list: [1, 2, 3, 2] };

describe("applyUpdate", () => {
  it.each([
    [{ $set: { "o.q": 2, s: "new" } }, { o: { p: 1, q: 2 }, s: "new" }],
    [{ $unset: { s: "", "o.p": "" } }, { s: undefined, o: {} }],
    [{ $inc: { n: 2, fresh: 1 } }, { n: 7, fresh: 1 }],
    [{ $mul: { n: 3 } }, { n: 15 }],
    [{ $min: { n: 2 } }, { n: 2 }],
    [{ $min: { n: 9 } }, { n: 5 }],
    [{ $max: { n: 9 } }, { n: 9 }],
    [{ $push: { tags: "c" } }, { tags: ["a", "b", "c"] }],
    [{ $push: { tags: { $each: ["c", "d"] } } }, { tags: ["a", "b", "c", "d"] }],
    [{ $addToSet: { tags: "a" } }, { tags: ["a", "b"] }],
    [{ $addToSet: { tags: { $each: ["a", "z"] } } }, { tags: ["a", "b", "z"] }],
    [{ $pull: { list: 2 } }, { list: [1, 3] }],
    [{ $pull: { list: { $gt: 1 } } }, { list: [1] }],
    [{ $rename: { o: "renamed" } }, { o: undefined, renamed: { p: 1 } }],
  ])("%j", (operation, changes) => {
    const result = applyUpdate(structuredClone(base), operation);
    const expected: Record<string, unknown> = { ...structuredClone(base), ...changes };
    for (const key of Object.keys(expected)) if (expected[key] === undefined) delete expected[key];
    expect(result).toEqual(expected);
  });

  it("refuses $push, $addToSet and $pull on a value that is not an array (400), as MongoDB does", () => {
    for (const operation of [{ $push: { s: 1 } }, { $addToSet: { n: 1 } }, { $pull: { o: 1 } }, { $push: { "o.p": 1 } }, { $push: { z: 1 } }]) {
      expect(() => applyUpdate(structuredClone(base), operation)).toThrow(/non-array value/);
      try {
        applyUpdate(structuredClone(base), operation);
      } catch (error) {
        expect((error as AppError).status).toBe(400);
      }
    }
    // A missing one becomes an array.
    expect(applyUpdate({ _id: "x" }, { $push: { y: 1 } })).toEqual({ _id: "x", y: [1] });
  });

  it("refuses writes that step into an array by a name or through a scalar (MongoDB's Cannot create field), and overflow", () => {
    const doc = { _id: "d", arr: [1, 2], objs: [{ k: 1 }], s: "text", z: null, big: 1e308 };
    for (const operation of [
      { $set: { "arr.x": 9 } }, { $inc: { "arr.y": 1 } }, { $set: { "objs.name": "z" } }, { $set: { "arr.-1": 5 } },
      { $set: { "s.x": 1 } }, { $set: { "z.a": 1 } }, { $push: { "arr.x": 1 } }, { $rename: { s: "arr.x" } }, { $mul: { big: 10 } },
    ]) expect(() => applyUpdate(structuredClone(doc), operation), JSON.stringify(operation)).toThrow(AppError);
    // An index far past the end would pad the array with nulls: at most 100,000, as on property paths.
    expect(() => applyUpdate(structuredClone(doc), { $set: { "arr.4000000": 1 } })).toThrow(/an array index is at most 100000/);
    expect(() => applyUpdate(structuredClone(doc), { $rename: { s: "arr.100001" } })).toThrow(AppError);
    expect((applyUpdate(structuredClone(doc), { $set: { "arr.5": 1 } }).arr as unknown[]).length).toBe(6);
    // And at most 100,000 in all: 40 paths of 99,999 made a 600-byte update a 20 MB document.
    const arrays = { _id: "a", ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`a${i}`, []])) };
    const padAll = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`a${i}.99999`, 1]));
    expect(() => applyUpdate(structuredClone(arrays), { $set: padAll })).toThrow("Cannot pad arrays by more than 100000 elements in one update");
    expect(() => applyUpdate(structuredClone(arrays), { $set: { "a0.50000": 1, "a1.49999": 1 } })).not.toThrow();
    // Elements past the cap that exist, and the next one, stay writable.
    const big = { _id: "b", arr: Array.from({ length: 100_003 }, () => 0) };
    expect((applyUpdate(structuredClone(big), { $set: { "arr.100002": 7 }, $inc: { "arr.100001": 1 } }).arr as number[]).slice(-3)).toEqual([0, 1, 7]);
    expect((applyUpdate(structuredClone(big), { $set: { "arr.100003": 9 } }).arr as number[]).length).toBe(100_004);
    expect(() => applyUpdate(structuredClone(big), { $set: { "arr.100004": 1 } })).toThrow(/at most 100000/);
    // Indexes into arrays and new paths are fine.
    expect(applyUpdate(structuredClone(doc), { $set: { "arr.1": 7, "objs.0.k": 2, "new.deep": 1 } })).toMatchObject({ arr: [1, 7], objs: [{ k: 2 }], new: { deep: 1 } });
  });

  it("refuses unknown $push/$addToSet modifiers and modifiers without $each, and $rename through an array (400), as MongoDB does", () => {
    const doc = { _id: "x", tags: ["a"], rows: [{ k: 1 }], o: { p: 1 } };
    for (const [operation, message] of [
      [{ $push: { tags: { $each: ["b"], $bogus: 1 } } }, /Unknown modifier \$bogus in \$push at tags/],
      [{ $addToSet: { tags: { $each: ["b"], $slice: 1 } } }, /Unknown modifier \$slice in \$addToSet/],
      [{ $push: { tags: { $slice: 1 } } }, /need \$each/],
      [{ $push: { tags: { $each: "b" } } }, /\$each needs an array/],
      [{ $push: { tags: { b: 1, $each: ["c"] } } }, /mixes modifiers with the field "b"/],
      [{ $push: { tags: { $each: ["c"], $sort: "x" } } }, /\$sort needs 1, -1/],
      [{ $push: { tags: { $each: ["c"], $sort: 2 } } }, /\$sort needs 1, -1/],
      [{ $push: { rows: { $each: [{ k: 0 }], $sort: {} } } }, /\$sort needs 1, -1/],
      [{ $push: { rows: { $each: [{ k: 0 }], $sort: { k: 0 } } } }, /\$sort needs 1, -1/],
      [{ $rename: { "rows.k": "moved" } }, /through an array at rows/],
      [{ $rename: { "o.p": "rows.p" } }, /in an array at rows|through an array at rows/],
    ] as const) {
      expect(() => applyUpdate(structuredClone(doc), operation), JSON.stringify(operation)).toThrow(message);
    }
    // What MongoDB takes still works: modifiers with $each, a plain object pushed, a plain rename.
    expect(applyUpdate(structuredClone(doc), { $push: { tags: { $each: ["b", "c"], $slice: 2 } } }).tags).toEqual(["a", "b"]);
    expect(applyUpdate(structuredClone(doc), { $push: { rows: { k: 2 } } }).rows).toEqual([{ k: 1 }, { k: 2 }]);
    expect(applyUpdate(structuredClone(doc), { $push: { rows: { $each: [{ k: 0 }], $sort: { k: 1 } } } }).rows).toEqual([{ k: 0 }, { k: 1 }]);
    expect(applyUpdate(structuredClone(doc), { $push: { tags: { $each: ["0"], $sort: -1 } } }).tags).toEqual(["a", "0"]);
    expect(applyUpdate(structuredClone(doc), { $rename: { "o.p": "o.q" } }).o).toEqual({ q: 1 });
  });

  it("$pull takes out what MongoDB's matchers would: exact values, object elements matching a query, elements matching operators", () => {
    const cases: [Json[], Json, Json[]][] = [
      [[1, 2, 3, { a: 2 }, { a: 3 }], { a: 2 }, [1, 2, 3, { a: 3 }]],
      [["x", "y", { a: "x" }], { a: "x" }, ["x", "y"]],
      [[1, 2, 3, { a: 2 }], { a: { $gt: 1 } }, [1, 2, 3]],
      [[1, "x", null, [1], {}], {}, [1, "x", null, [1]]],
      [[1, [1, 2], [1], [[1]]], 1, [[1, 2], [1], [[1]]]],
      [["x", ["x", "y"]], "x", [["x", "y"]]],
      [[[1, 2], [2, 1], 1], { $in: [[1, 2]] }, [[2, 1], 1]],
      [[[], [1]], { $in: [[]] }, [[1]]],
      [[[1, 2], 3], { $nin: [[1, 2]] }, [[1, 2]]],
      [[1, 2, 3, 2], { $gt: 1 }, [1]],
      [[1, 2, [1, 2]], [1, 2], [1, 2]],
      [[{ k: 1, j: 2 }, { k: 1 }, 2, "2", null], { $in: [2, null, { j: 2, k: 1 }] }, [{ k: 1 }, "2"]],
      [[{ k: 1, j: 2 }, { k: 1 }, 2, "2"], { $nin: [2, { k: 1 }] }, [{ k: 1 }, 2]],
      [[{ sku: "x", n: 1 }, { sku: "y" }], { sku: "x" }, [{ sku: "y" }]],
    ];
    for (const [list, condition, left] of cases)
      expect(applyUpdate({ _id: "d", list: structuredClone(list) }, { $pull: { list: condition } }).list, `${JSON.stringify(condition)} from ${JSON.stringify(list)}`).toEqual(left);
    // A missing array stays missing.
    expect(applyUpdate({ _id: "d" }, { $pull: { list: 1 } })).toEqual({ _id: "d" });
    const big = { _id: "big", list: Array.from({ length: 200_000 }, (_, i) => ({ n: i })) };
    const pulled = applyUpdate(big, { $pull: { list: { $in: Array.from({ length: 1000 }, (_, i) => ({ n: i * 2 })) } } });
    expect(pulled.list).toHaveLength(199_000);
    // A condition mingo must run per element, over many elements: refused past the bound.
    const error = (() => {
      try {
        applyUpdate(big, { $pull: { list: { n: { $gt: 5 }, $or: Array.from({ length: 20 }, (_, i) => ({ n: i })) } } });
      } catch (e) {
        return e as AppError;
      }
    })();
    expect(error?.status).toBe(400);
    expect(error?.message).toMatch(/^\$pull at list would compare 200000 elements/);
  });

  it("$addToSet keeps the duplicates an array already holds and adds each new value once, as MongoDB does", () => {
    const doc = { _id: "x", d: [1, 1, 2], rows: [{ k: 1 }] };
    expect(applyUpdate(structuredClone(doc), { $addToSet: { d: 3 } }).d).toEqual([1, 1, 2, 3]);
    expect(applyUpdate(structuredClone(doc), { $addToSet: { d: 1 } }).d).toEqual([1, 1, 2]);
    expect(applyUpdate(structuredClone(doc), { $addToSet: { d: { $each: [3, 4] } } }).d).toEqual([1, 1, 2, 3, 4]);
    expect(applyUpdate(structuredClone(doc), { $addToSet: { d: { $each: [2, 3, 3] } } }).d).toEqual([1, 1, 2, 3]);
    // A missing field: the distinct values, in order.
    expect(applyUpdate(structuredClone(doc), { $addToSet: { fresh: { $each: [1, 1, 2] } } }).fresh).toEqual([1, 2]);
    expect(applyUpdate(structuredClone(doc), { $addToSet: { "deep.list": 5 } }).deep).toEqual({ list: [5] });
    // Documents and arrays compare by value; an array is one element.
    expect(applyUpdate(structuredClone(doc), { $addToSet: { rows: { $each: [{ k: 1 }, { k: 2 }] } } }).rows).toEqual([{ k: 1 }, { k: 2 }]);
    expect(applyUpdate(structuredClone(doc), { $addToSet: { d: [1, 2] } }).d).toEqual([1, 1, 2, [1, 2]]);
  });

  it("$push applies $position, $sort and $slice to a missing field as to an existing one", () => {
    const pushed = applyUpdate({ _id: "x" }, { $push: { b: { $each: [1, 2, 3], $slice: 2 }, c: { $each: [3, 1, 2], $sort: -1, $slice: -2 }, e: { $each: [{ n: 2 }, { n: 1 }], $sort: { n: 1 } } } });
    expect(pushed).toEqual({ _id: "x", b: [1, 2], c: [2, 1], e: [{ n: 1 }, { n: 2 }] });
    expect(applyUpdate({ _id: "x", o: {} }, { $push: { "o.a": { $each: [3, 1, 2], $sort: 1 } } }).o).toEqual({ a: [1, 2, 3] });
    expect(applyUpdate({ _id: "x", a: [] }, { $push: { a: { $each: [3, 1, 2], $sort: 1 } } }).a).toEqual([1, 2, 3]);
  });

  it("refuses an update naming a path twice or a path inside another (400), as MongoDB does", () => {
    for (const [operation, message] of [
      [{ $set: { a: 1 }, $inc: { a: 1 } }, "Updating the path a would create a conflict at a"],
      [{ $set: { "o.p": 1 }, $unset: { o: "" } }, "Updating the path o.p would create a conflict at o"],
      [{ $push: { tags: "c" }, $addToSet: { tags: "d" } }, "Updating the path tags would create a conflict at tags"],
      [{ $rename: { s: "moved" }, $set: { "moved.x": 1 } }, "Updating the path moved.x would create a conflict at moved"],
    ] as const) {
      expect(() => applyUpdate(structuredClone(base), operation), JSON.stringify(operation)).toThrow(message);
    }
    // Siblings and paths that only share a prefix of characters do not conflict.
    expect(applyUpdate(structuredClone(base), { $set: { "o.q": 2, "o.r": 3, on: 1 }, $inc: { n: 1 } })).toMatchObject({ o: { p: 1, q: 2, r: 3 }, on: 1, n: 6 });
    // Many paths are checked in linear time (no pairwise comparison).
    // (Spread over objects: one object holds at most 10,000 keys.)
    const many = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`g${i % 100}.k${i}`, i]));
    const updated = applyUpdate({ _id: "x" }, { $set: many });
    expect(Object.keys(updated)).toHaveLength(101);
    expect(Object.keys(updated.g7 as object)).toHaveLength(500);
  });

  it("does not touch its input", () => {
    const input = structuredClone(base);
    applyUpdate(input, { $set: { n: 1 }, $push: { tags: "x" } });
    expect(input).toEqual(base);
  });

  it.each([
    [{ $foo: { a: 1 } }, "Unknown operator: $foo"],
    [{ a: 1 }, "Unknown operator: a"],
    [[], "Update operation must be an object of update operators"],
    [{}, "Update operation must be an object of update operators"],
    [{ $set: 1 }, "$set needs an object of fields"],
    [{ $inc: { n: "1" } }, "$inc needs numbers"],
    [{ $inc: { s: 1 } }, "Cannot apply $inc to a non-numeric value at s"],
    [{ $set: { _id: "other" } }, "Cannot change _id"],
    [{ $unset: { _id: "" } }, "Cannot change _id"],
    [{ $rename: { _id: "x" } }, "Cannot change _id"],
    [{ $rename: { n: "_id" } }, "Cannot change _id"],
    [{ $set: { "a..b": 1 } }, 'Invalid field path: "a..b"'],
  ])("refuses %j", (operation, message) => {
    let caught: unknown;
    try {
      applyUpdate(structuredClone(base), operation);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).status).toBe(400);
    expect((caught as AppError).message).toBe(message);
  });

  it("allows setting _id to its own value", () => {
    expect(applyUpdate(structuredClone(base), { $set: { _id: "d1", n: 0 } }).n).toBe(0);
  });
});
