import { describe, expect, it } from "vitest";
import { mergePatch } from "../documents/merge-patch";
import { applyUpdate } from "./apply-update";
import { checkJsonInput, MAX_JSON_DEPTH, MAX_OBJECT_KEYS, setOwn } from "./json-input";
import { projectDocument } from "./project-document";

const status = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return { status: (error as { status?: number }).status, message: (error as Error).message };
  }
  return undefined;
};
const nest = (depth: number): unknown => (depth === 0 ? 1 : { a: [nest(depth - 1)].flat() });

describe("checkJsonInput", () => {
  it("accepts ordinary JSON, constructor and prototype keys included", () => {
    expect(status(() => checkJsonInput({ constructor: { prototype: [1, "x", null] }, toString: true }))).toBeUndefined();
  });

  it("refuses __proto__ keys at any depth, NUL and lone surrogates in strings and keys", () => {
    for (const value of [JSON.parse('{"__proto__":1}'), JSON.parse('{"a":[{"b":{"__proto__":{}}}]}'), { s: "a\u0000" }, { "k\u0000": 1 }, ["\ud800"], { x: "\udc00y" }]) {
      expect(status(() => checkJsonInput(value))?.status, JSON.stringify(value)).toBe(400);
    }
    expect(status(() => checkJsonInput({ s: "😀" }))).toBeUndefined();
  });

  it(`bounds nesting at ${MAX_JSON_DEPTH} levels, iteratively (100,000 deep is a 400, not a stack overflow)`, () => {
    let deep: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) deep = [deep];
    expect(status(() => checkJsonInput(deep))).toBeUndefined();
    expect(status(() => checkJsonInput([deep]))?.message).toBe(`Request body is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`);
    let huge: unknown = 1;
    for (let i = 0; i < 100_000; i++) huge = { a: huge };
    expect(status(() => checkJsonInput(huge, "Filter"))?.message).toMatch(/^Filter is nested too deeply/);
    expect(status(() => checkJsonInput(nest(10)))).toBeUndefined();
  });

  it(`bounds an object at ${MAX_OBJECT_KEYS} keys, at any depth (a hash-table object costs every pass over it ~1 µs a key)`, () => {
    const wide = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect(status(() => checkJsonInput(wide(MAX_OBJECT_KEYS)))).toBeUndefined();
    expect(status(() => checkJsonInput({ a: [wide(MAX_OBJECT_KEYS + 1)] }))).toEqual({ status: 400, message: `Request body holds an object of more than ${MAX_OBJECT_KEYS} keys` });
    // Many small objects are no such cost: 200,000 of them pass.
    expect(status(() => checkJsonInput(Array.from({ length: 200_000 }, (_, i) => ({ a: i }))))).toBeUndefined();
  });
});

describe("walks and merges on own properties only", () => {
  it("setOwn never invokes the __proto__ setter", () => {
    const target: Record<string, unknown> = {};
    setOwn(target, "__proto__", { polluted: true });
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect(Object.keys(target)).toEqual(["__proto__"]);
  });

  it("mergePatch treats constructor as data and cannot reach a prototype", () => {
    expect(mergePatch({ a: 1 }, { constructor: { prototype: { x: 1 } } })).toEqual({ a: 1, constructor: { prototype: { x: 1 } } });
    const merged = mergePatch({}, JSON.parse('{"__proto__":{"polluted":1}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("applyUpdate writes constructor/toString paths the document lacks (mingo alone dropped them)", () => {
    expect(applyUpdate({ _id: "a", a: 1 }, { $set: { "constructor.x": 1, toString: 2 } })).toEqual({ _id: "a", a: 1, constructor: { x: 1 }, toString: 2 });
    expect(applyUpdate({ _id: "a", a: 1 }, { $rename: { a: "constructor.prototype.r" } })).toEqual({ _id: "a", constructor: { prototype: { r: 1 } } });
    expect(applyUpdate({ _id: "a", constructor: { y: [1] } }, { $push: { "constructor.y": 2 }, $inc: { "prototype.n": 1 } })).toEqual({ _id: "a", constructor: { y: [1, 2] }, prototype: { n: 1 } });
    expect(status(() => applyUpdate({ _id: "a" }, { $set: { "__proto__.x": 1 } }))?.status).toBe(400);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it("projectDocument copies constructor as data", () => {
    const doc = { _id: "a", constructor: { prototype: 1 }, b: 2 };
    expect(projectDocument(doc, { fields: "constructor.prototype" })).toEqual({ _id: "a", constructor: { prototype: 1 } });
    expect(projectDocument({ _id: "a" }, { fields: "constructor.prototype" })).toEqual({ _id: "a" });
  });
});
