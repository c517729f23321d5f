import Ajv from "ajv-draft-04";
import { describe, expect, it } from "vitest";
import { linearRegExp } from "./linear-regexp";

describe("JSON Schema patterns on RE2", () => {
  it("an exponential pattern answers at once instead of blocking the event loop", () => {
    const ajv = new Ajv({ strict: false, code: { regExp: linearRegExp } });
    const validate = ajv.compile({ type: "string", pattern: "^(a+)+$" });
    const started = performance.now();
    expect(validate(`${"a".repeat(50_000)}!`)).toBe(false);
    expect(validate("aaaa")).toBe(true);
    // Not a timing assertion of the product: a hang detector (backtracking takes minutes here).
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("refuses what RE2 cannot run, so such a schema is refused when saved", () => {
    const ajv = new Ajv({ strict: false, code: { regExp: linearRegExp } });
    expect(() => ajv.compile({ type: "string", pattern: "(a)\\1" })).toThrow();
    expect(() => ajv.compile({ type: "string", pattern: "a(?=b)" })).toThrow();
  });

  it("keeps each pattern apart in one ajv instance (its scope shares compiled patterns by their text)", () => {
    const ajv = new Ajv({ strict: false, code: { regExp: linearRegExp } });
    const first = ajv.compile({ type: "string", pattern: "^a" });
    const second = ajv.compile({ type: "string", pattern: "^b" });
    const keyed = ajv.compile({ type: "object", patternProperties: { "^x_": { type: "integer" } }, additionalProperties: false });
    expect([first("ab"), first("ba")]).toEqual([true, false]);
    expect([second("ba"), second("ab")]).toEqual([true, false]);
    expect([keyed({ x_1: 1 }), keyed({ x_1: "s" }), keyed({ a_1: 1 })]).toEqual([true, false, false]);
  });
});
