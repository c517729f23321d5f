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
    ["^[^a-z]+$", "i", "ABC", false],
    ["^[^a-z]+$", "i", "abc", false],
    ["^[^a-z]+$", "i", "123", true],
    ["[^A-Z]", "i", "abc1", true],
    ["^[^A-Z]*$", "i", "abc", false],
  ])("%s (%s) on %j is %s", (source, options, input, expected) => {
    expect(compileRegex(source, options).js.test(input)).toBe(expected);
  });

  it("spells classes out for PostgreSQL", () => {
    expect(compileRegex("^a.$").pg).toBe("^\\U00000061[\\U00000001-\\U00000009\\U0000000b-\\U0000d7ff\\U0000e000-\\U0010ffff]$");
    expect(compileRegex("a", "i").pg).toBe("[\\U00000041\\U00000061]");
  });
});

describe("compileRegex: hostile patterns", () => {
  it("runs catastrophic-backtracking patterns in linear time (RE2, not a JavaScript RegExp)", () => {
    // On V8's backtracking engine each of these took seconds to minutes on this input.
    const input = `${"a".repeat(5000)}!`;
    for (const source of ["^(a+)+$", "^(a|a)*$", "^(a|aa)+$", "(x+x+)+y", "^([a-z]+)*[0-9]$"]) {
      expect(compileRegex(source).js.test(input)).toBe(false);
      expect(compileRegex(source, "i").js.test(input)).toBe(false);
    }
    expect(compileRegex("^(a+)+$").js).not.toBeInstanceOf(RegExp);
  });

  it.each([
    ["(a)\\1", /backreferences are not supported/],
    ["a(?=b)", /lookarounds are not supported/],
    ["a(?!b)", /lookarounds are not supported/],
    ["(?<=a)b", /lookarounds are not supported/],
    ["(?<!a)b", /lookarounds are not supported/],
    ["(?<n>a)", /named groups are not supported/],
    ["^[[:digit:]]+$", /POSIX bracket expressions/],
    ["[[:alpha:]x]", /POSIX bracket expressions/],
    ["[[.a.]]", /POSIX bracket expressions/],
    ["((((a{100}){100}){100}){100})", /./],
  ])("refuses %s with a 400", (source, message) => {
    let error: { status?: number; message?: string } | undefined;
    try {
      compileRegex(source);
    } catch (caught) {
      error = caught as typeof error;
    }
    expect(error?.status).toBe(400);
    expect(error?.message).toMatch(message);
  });
});
