import { describe, expect, it } from "vitest";
import { formatContentRange, MAX_RANGES, parseRange, type RangeResult } from "./range";

const r = (start: number, end: number) => ({ start, end });
/** What a header asking for one satisfiable range gives, and one asking for several. */
const one = (ranges: Array<ReturnType<typeof r>>) => ({ ranges, multipart: false });
const several = (ranges: Array<ReturnType<typeof r>>) => ({ ranges, multipart: true });

describe("parseRange", () => {
  const cases: Array<[string, number, string | undefined, RangeResult]> = [
    // absent or empty
    ["no header", 1000, undefined, "ignore"],
    ["empty header", 1000, "", "ignore"],
    ["unit only", 1000, "bytes=", "ignore"],
    ["only commas", 1000, "bytes=,, ,", "ignore"],

    // single ranges
    ["first and last", 1000, "bytes=0-99", one([r(0, 99)])],
    ["one byte", 1000, "bytes=0-0", one([r(0, 0)])],
    ["open-ended", 1000, "bytes=100-", one([r(100, 999)])],
    ["suffix", 1000, "bytes=-500", one([r(500, 999)])],
    ["suffix longer than file", 1000, "bytes=-5000", one([r(0, 999)])],
    ["last byte", 1000, "bytes=999-999", one([r(999, 999)])],
    ["last-pos clamped", 1000, "bytes=900-5000", one([r(900, 999)])],
    ["huge last-pos clamped", 1000, "bytes=0-99999999999999999999999", one([r(0, 999)])],
    ["whole file", 1000, "bytes=0-", one([r(0, 999)])],

    // whitespace and case
    ["OWS around elements", 1000, "bytes= 0-9 , 20-29 ", several([r(0, 9), r(20, 29)])],
    ["OWS around the dash", 1000, "bytes=0 - 9", one([r(0, 9)])],
    ["tab", 1000, "bytes=\t0-9", one([r(0, 9)])],
    ["unit is case-insensitive", 1000, "Bytes=0-9", one([r(0, 9)])],
    ["empty list elements skipped", 1000, "bytes=0-1,,5-6", several([r(0, 1), r(5, 6)])],
    ["newline is not whitespace", 1000, "bytes=0-9\n", "ignore"],

    // several ranges
    ["first and last byte", 1000, "bytes=0-0,-1", several([r(0, 0), r(999, 999)])],
    ["order kept", 1000, "bytes=500-599,0-99", several([r(500, 599), r(0, 99)])],
    ["overlap coalesced, still multipart", 1000, "bytes=0-99,50-149", several([r(0, 149)])],
    ["adjacent kept apart", 1000, "bytes=0-99,100-199", several([r(0, 99), r(100, 199)])],
    ["adjacent one-byte ranges kept apart", 1000, "bytes=0-0,1-1,2-2", several([r(0, 0), r(1, 1), r(2, 2)])],
    ["repeated whole file coalesced", 1000, "bytes=0-,0-,0-,0-", several([r(0, 999)])],
    ["contained coalesced", 1000, "bytes=0-999,10-20", several([r(0, 999)])],
    ["coalesced keeps first-asked order", 1000, "bytes=900-,0-9,5-19", several([r(900, 999), r(0, 19)])],
    ["one-byte file, first and last", 1, "bytes=0-0,-1", several([r(0, 0)])],
    ["unsatisfiable members dropped", 1000, "bytes=2000-3000,0-9", one([r(0, 9)])],

    // other units, malformed
    ["other unit", 1000, "items=0-9", "ignore"],
    ["no unit", 1000, "0-9", "ignore"],
    ["letters", 1000, "bytes=abc", "ignore"],
    ["no dash", 1000, "bytes=5", "ignore"],
    ["bare dash", 1000, "bytes=-", "ignore"],
    ["reversed", 1000, "bytes=5-2", "ignore"],
    ["one reversed poisons the set", 1000, "bytes=0-9,5-2", "ignore"],
    ["negative first-pos", 1000, "bytes=--5", "ignore"],
    ["decimal", 1000, "bytes=0.5-9", "ignore"],
    ["exponent", 1000, "bytes=1e2-", "ignore"],
    ["hex", 1000, "bytes=0x10-", "ignore"],
    ["plus sign", 1000, "bytes=+1-2", "ignore"],
    ["two dashes", 1000, "bytes=1-2-3", "ignore"],
    ["space inside a number", 1000, "bytes=1 0-20", "ignore"],
    [`more than ${MAX_RANGES} ranges`, 1000, "bytes=" + Array.from({ length: MAX_RANGES + 1 }, (_, i) => `${i}-${i}`).join(","), "ignore"],

    // unsatisfiable
    ["start at size", 1000, "bytes=1000-", "unsatisfiable"],
    ["start beyond size", 1000, "bytes=2000-3000", "unsatisfiable"],
    ["all beyond size", 1000, "bytes=1000-1001,5000-", "unsatisfiable"],
    ["zero suffix", 1000, "bytes=-0", "unsatisfiable"],

    // empty representation
    ["empty file, int-range", 0, "bytes=0-", "unsatisfiable"],
    ["empty file, closed range", 0, "bytes=0-0", "unsatisfiable"],
    ["empty file, suffix", 0, "bytes=-5", "ignore"],
    ["empty file, zero suffix", 0, "bytes=-0", "unsatisfiable"],
    ["empty file, malformed", 0, "bytes=x", "ignore"],

    // nonsense sizes are not ours to serve partially
    ["negative size", -1, "bytes=0-0", "ignore"],
    ["fractional size", 1.5, "bytes=0-0", "ignore"],
  ];

  it.each(cases)("%s: size %d, %j", (_name, size, header, expected) => {
    expect(parseRange(size, header)).toEqual(expected);
  });

  it(`accepts exactly ${MAX_RANGES} ranges`, () => {
    const header = "bytes=" + Array.from({ length: MAX_RANGES }, (_, i) => `${i * 10}-${i * 10}`).join(",");
    const result = parseRange(10_000, header);
    expect(typeof result === "object" && result.ranges.length).toBe(MAX_RANGES);
  });
});

describe("formatContentRange", () => {
  it.each([
    [1000, r(0, 99), "bytes 0-99/1000"],
    [1000, undefined, "bytes */1000"],
    [0, undefined, "bytes */0"],
  ])("size %d, %j -> %s", (size, range, expected) => {
    expect(formatContentRange(size, range)).toBe(expected);
  });
});
