import { describe, expect, it } from "vitest";
import { compileRegex } from "./compile-regex";

describe("compileRegex", () => {
  it.each([
    ["^a.c$", "", "abc", true],
    ["^a.c$", "", "a\nc", false],
    ["\\d+", "", "x42", true],
    ["\\w", "", "é", false],
    ["^[^a]$", "", "😀", true],
    ["STRASSE", "i", "strasse", true],
    ["é", "i", "É", true],
    ["[a-c]+$", "i", "xAB", true],
    ["a{2}", "", "a", false],
    ["x|^y", "", "ay", false],
    ["", "", "anything", true],
  ])("%s (%s) on %j is %s", (source, options, input, expected) => {
    expect(compileRegex(source, options).js.test(input)).toBe(expected);
  });

  it("spells classes out for PostgreSQL", () => {
    expect(compileRegex("^a.$").pg).toBe("^\\U00000061[\\U00000001-\\U00000009\\U0000000b-\\U0000d7ff\\U0000e000-\\U0010ffff]$");
    expect(compileRegex("a", "i").pg).toBe("[\\U00000041\\U00000061]");
  });
});
