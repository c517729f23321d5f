import { describe, expect, it } from "vitest";
import { compileSchema } from "./document-schema";
import { DRAFT4_FORMATS } from "./schema-formats";

describe("draft 4 formats", () => {
  it.each([
    ["date-time", ["2026-11-24T10:00:00Z", "2026-11-24t10:00:00.123+02:00", "2024-02-29T23:59:60Z"], ["2026-11-24", "2026-02-30T10:00:00Z", "2026-11-24T24:00:00Z", "2026-11-24T10:00:00", "2026-11-24T10:00:00+25:00", "x"]],
    ["email", ["ann@example.com", "a.b+c@sub.example.org", "root@localhost"], ["ann", "ann@", "@example.com", "ann@-example.com", "ann example@x.org", "ann@exa_mple.com"]],
    ["hostname", ["example.com", "a-b.example.org.", "localhost"], ["-a.com", "a..b", "exa mple.com", "a".repeat(64) + ".com"]],
    ["ipv4", ["10.0.0.1", "255.255.255.255"], ["256.1.1.1", "1.2.3", "::1"]],
    ["ipv6", ["::1", "2001:db8::8a2e:370:7334"], ["1.2.3.4", "2001:::1", "g::1"]],
    ["uri", ["https://example.com/a?b#c", "urn:isbn:0451450523", "mailto:ann@example.com"], ["example.com/x", "/relative", "http://a b", ""]],
  ])("%s", (format, good, bad) => {
    for (const value of good) expect(DRAFT4_FORMATS[format](value), value).toBe(true);
    for (const value of bad) expect(DRAFT4_FORMATS[format](value), value).toBe(false);
  });

  it("runs in linear time on input made to make a backtracking engine stall", () => {
    // Each would take minutes on a backtracking pattern of the same shape; here they just answer.
    expect(DRAFT4_FORMATS.email(`a@${"a-".repeat(50_000)}!`)).toBe(false);
    expect(DRAFT4_FORMATS.hostname(`${"a".repeat(61)}.`.repeat(3) + "-")).toBe(false);
    expect(DRAFT4_FORMATS.uri(`a:${"x".repeat(100_000)} `)).toBe(false);
  });

  it("a collection schema's format refuses what does not match (422 naming the property); unknown formats stay annotations", () => {
    const schema = compileSchema({
      type: "object",
      properties: { email: { type: "string", format: "email" }, at: { type: "string", format: "date-time" }, color: { type: "string", format: "color" } },
    });
    expect(schema.validate({ email: "ann@example.com", at: "2026-11-24T10:00:00Z", color: "anything" })).toEqual([]);
    expect(schema.validate({ email: "not an address" })).toEqual([{ property: "email", message: 'must match format "email"' }]);
    expect(schema.validate({ at: "yesterday" })).toEqual([{ property: "at", message: 'must match format "date-time"' }]);
    // A format constrains strings only.
    expect(compileSchema({ type: "object", properties: { n: { format: "email" } } }).validate({ n: 5 })).toEqual([]);
  });
});

describe("uniqueItems", () => {
  const compiled = compileSchema({ type: "object", properties: { list: { type: "array", uniqueItems: true }, free: { type: "array", uniqueItems: false } } }, { checkArca: true });

  it("finds equal items whatever their key order, and only equal ones", () => {
    expect(compiled.validate({ list: [{ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }] })).toEqual([{ property: "list", message: "must NOT have duplicate items (items ## 0 and 1 are identical)" }]);
    expect(compiled.validate({ list: [1, "1", [1], { a: 1 }, { a: "1" }, null, true, 1.5] })).toEqual([]);
    expect(compiled.validate({ list: [2, 1, 2] })).toEqual([{ property: "list", message: "must NOT have duplicate items (items ## 0 and 2 are identical)" }]);
    expect(compiled.validate({ free: [1, 1] })).toEqual([]);
  });

  it("checks 100,000 objects by their canonical JSON (ajv compared them pair by pair, for minutes)", () => {
    const list = Array.from({ length: 100_000 }, (_, i) => ({ i, tag: "x" }));
    expect(compiled.validate({ list })).toEqual([]);
    list.push({ tag: "x", i: 99_999 });
    expect(compiled.validate({ list })[0].message).toBe("must NOT have duplicate items (items ## 99999 and 100000 are identical)");
  });
});
