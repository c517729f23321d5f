import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { applyUpdate } from "./apply-update";

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
      [{ $rename: { "rows.k": "moved" } }, /through an array at rows/],
      [{ $rename: { "o.p": "rows.p" } }, /in an array at rows|through an array at rows/],
    ] as const) {
      expect(() => applyUpdate(structuredClone(doc), operation), JSON.stringify(operation)).toThrow(message);
    }
    // What MongoDB takes still works: modifiers with $each, a plain object pushed, a plain rename.
    expect(applyUpdate(structuredClone(doc), { $push: { tags: { $each: ["b", "c"], $slice: 2 } } }).tags).toEqual(["a", "b"]);
    expect(applyUpdate(structuredClone(doc), { $push: { rows: { k: 2 } } }).rows).toEqual([{ k: 1 }, { k: 2 }]);
    expect(applyUpdate(structuredClone(doc), { $rename: { "o.p": "o.q" } }).o).toEqual({ q: 1 });
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
