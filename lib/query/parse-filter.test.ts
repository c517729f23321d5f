import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { parseFilter, parseFilterParam } from "./parse-filter";

function error(run: () => unknown): AppError {
  try {
    run();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error("expected a bad request");
}

describe("parseFilter", () => {
  it.each([
    [{ a: { $foo: 1 } }, "Unknown operator: $foo"],
    [{ $where: "1" }, "Unknown operator: $where"],
    [{ a: { $not: { $bar: 1 } } }, "Unknown operator: $bar"],
    [{ a: { $in: 1 } }, "$in needs an array"],
    [{ a: { $nin: "x" } }, "$nin needs an array"],
    [{ a: { $all: {} } }, "$all needs an array"],
    [{ a: { $size: -1 } }, "$size needs a non-negative integer"],
    [{ a: { $size: 1.5 } }, "$size needs a non-negative integer"],
    [{ a: { $size: "2" } }, "$size needs a non-negative integer"],
    [{ a: { $exists: "yes" } }, "$exists needs true or false"],
    [{ a: { $regex: 5 } }, "$regex needs a string"],
    [{ a: { $regex: "(" } }, 'Invalid $regex "(": missing )'],
    [{ a: { $regex: "a)" } }, 'Invalid $regex "a)": unbalanced )'],
    [{ a: { $regex: "*a" } }, 'Invalid $regex "*a": nothing to repeat before *'],
    [{ a: { $regex: "[b-a]" } }, 'Invalid $regex "[b-a]": range out of order in character class'],
    [{ a: { $regex: "(a)\\1" } }, 'Invalid $regex "(a)\\\\1": backreferences are not supported (patterns run on a linear-time engine)'],
    [{ a: { $regex: "(?=a)" } }, 'Invalid $regex "(?=a)": lookarounds are not supported (patterns run on a linear-time engine)'],
    [{ a: { $regex: "(?x)a" } }, 'Invalid $regex "(?x)a": inline flag x is not supported (only i, m and s are)'],
    [{ a: { $regex: "a{1,500}" } }, 'Invalid $regex "a{1,500}": repeat count above 100'],
    [{ a: { $regex: "a", $options: "g" } }, "Unsupported $options flag: g"],
    [{ a: { $regex: "a", $options: "x" } }, "Unsupported $options flag: x"],
    [{ a: { $options: "i" } }, "$options needs $regex"],
    [{ $and: [] }, "$and needs a non-empty array"],
    [{ $or: {} }, "$or needs a non-empty array"],
    [{ $nor: [1] }, "$nor needs an array of filter objects"],
    [{ a: { $gt: [1] } }, "$gt needs a number, string, boolean or null"],
    [{ a: { $elemMatch: 1 } }, "$elemMatch needs an object"],
    [{ a: { $not: 1 } }, "$not needs an operator document"],
    [{ a: { $gt: 1, b: 2 } }, "Cannot mix operators and fields in one condition: $gt, b"],
    [{ "a..b": 1 }, 'Invalid field path: "a..b"'],
    [{ a: "nul\u0000" }, "Filter strings must be valid Unicode without NUL"],
    [[1], "filter must be a JSON object"],
  ])("refuses %j", (input, message) => {
    const e = error(() => parseFilter(input));
    expect(e.status).toBe(400);
    expect(e.message).toBe(message);
  });

  it("reads a bare value as $eq and splits dotted paths", () => {
    expect(parseFilter({ "a.b": 1 })).toEqual({ kind: "field", path: ["a", "b"], ops: [{ op: "eq", value: 1 }] });
    expect(parseFilter({ a: { b: 1 } })).toEqual({ kind: "field", path: ["a"], ops: [{ op: "eq", value: { b: 1 } }] });
  });

  it("combines several fields with and, and an empty filter matches all", () => {
    expect(parseFilter({})).toEqual({ kind: "and", children: [] });
    expect(parseFilter(null)).toEqual({ kind: "and", children: [] });
    const node = parseFilter({ a: 1, $or: [{ b: 2 }, { c: { $exists: false } }] });
    expect(node.kind).toBe("and");
  });

  it("reads $all of $elemMatch documents as every one of them; mixed with values it is 400", () => {
    expect(parseFilter({ a: { $all: [{ $elemMatch: { b: 1 } }, { $elemMatch: { $gt: 1 } }] } })).toMatchObject({ ops: [{ op: "elemMatch" }, { op: "elemMatchOps" }] });
    expect(() => parseFilter({ a: { $all: [{ $elemMatch: { b: 1 } }, 2] } })).toThrow("$all cannot mix $elemMatch with values");
  });

  it("bounds the patterns' size with counted repeats spelled out (RE2 compiles on the event loop), not only their length", () => {
    const heavy = "(?:a|b|c|d){1,99}".repeat(55).slice(0, 990);
    expect(() => parseFilter({ s: { $regex: heavy } })).toThrow("Filter's $regex patterns are too complex together");
    // Each within the budget alone, too much together.
    const part = "[a-z]{1,99}".repeat(13);
    expect(() => parseFilter({ a: { $regex: part } })).not.toThrow();
    expect(() => parseFilter({ $or: [{ a: { $regex: part } }, { b: { $regex: part } }] })).toThrow("too complex together");
    expect(() => parseFilter({ email: { $regex: "^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$", $options: "i" } })).not.toThrow();
  });

  it("compiles a repeated pattern once: the same compiled regex comes back, its size still counted", () => {
    const first = parseFilter({ a: { $regex: "^x{1,50}y$" } });
    const again = parseFilter({ a: { $regex: "^x{1,50}y$" } });
    const regexOf = (node: unknown) => JSON.stringify(node).length && (node as { ops: { regex: unknown }[] }).ops[0].regex;
    expect(regexOf(again)).toBe(regexOf(first));
    expect(() => parseFilter({ $or: Array.from({ length: 60 }, (_, i) => ({ [`k${i}`]: { $regex: "^x{1,50}y$" } })) })).toThrow("too complex together");
  });

  it("$in, $nin and $all take values, not operators (400, as MongoDB)", () => {
    for (const key of ["$in", "$nin", "$all"]) expect(() => parseFilter({ a: { [key]: ["x", { $regex: "a" }] } })).toThrow(`${key} takes values, not operators`);
    expect(parseFilter({ a: { $in: [{ b: 1 }, null, [1]] } })).toMatchObject({ ops: [{ op: "in" }] });
  });

  it("tells an operator $elemMatch from a query $elemMatch", () => {
    expect(parseFilter({ a: { $elemMatch: { $gt: 1 } } })).toMatchObject({ ops: [{ op: "elemMatchOps" }] });
    expect(parseFilter({ a: { $elemMatch: { b: 1 } } })).toMatchObject({ ops: [{ op: "elemMatch" }] });
    expect(parseFilter({ a: { $elemMatch: { $or: [{ b: 1 }] } } })).toMatchObject({ ops: [{ op: "elemMatch" }] });
  });

  it("pairs $regex with $options", () => {
    const node = parseFilter({ a: { $regex: "^ab", $options: "i" } });
    expect(node).toMatchObject({ ops: [{ op: "regex", regex: { source: "^ab", ignoreCase: true } }] });
  });
});

describe("parseFilterParam", () => {
  it("parses JSON text and treats empty as no filter", () => {
    expect(parseFilterParam('{"a":1}')).toMatchObject({ kind: "field", path: ["a"] });
    expect(parseFilterParam("")).toEqual({ kind: "and", children: [] });
    expect(parseFilterParam(undefined)).toEqual({ kind: "and", children: [] });
  });

  it("answers 400 to malformed JSON", () => {
    const e = error(() => parseFilterParam("{a:1"));
    expect(e.status).toBe(400);
    expect(e.message).toBe("Malformed filter: not valid JSON");
  });
});
