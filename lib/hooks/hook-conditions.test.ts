import { describe, expect, it } from "vitest";
import { conditionsFor, matchesConditions } from "./hook";

// Hook conditions of every project compile on one ajv instance: an id in one hook's conditions
// must not become resolvable from another's.
describe("hook conditions with ids", () => {
  it("compile again under the same id, and do not lend it to other conditions", () => {
    const conditions = { id: "http://conditions.example/secret", properties: { pin: { type: "string", pattern: "^SECRET$" } } };
    expect(matchesConditions({ conditions: structuredClone(conditions) }, { pin: "SECRET" })).toBe(true);
    expect(matchesConditions({ conditions: { ...structuredClone(conditions), required: ["pin"] } }, { pin: "x" })).toBe(false);
    expect(() => conditionsFor({ properties: { a: { $ref: "http://conditions.example/secret" } } })).toThrow(/resolve reference/);
  });
});
