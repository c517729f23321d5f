import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { compileRegex } from "./compile-regex";

// The shared harness's database; without one the PostgreSQL cases fail rather than skip.
const url = inject("databaseUrl") || process.env.ARCA_TEST_DATABASE_URL;
let client: pg.Client | undefined;

beforeAll(async () => {
  if (!url) return;
  client = new pg.Client({ connectionString: url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
});

/** The pattern as compile-filter runs it: on the text under `COLLATE "C"`. */
async function pgMatches(pattern: string, input: string): Promise<boolean> {
  if (!client) throw new Error("ARCA_TEST_DATABASE_URL is not set");
  const result = await client.query(`SELECT $1::text COLLATE "C" ~ $2::text AS m`, [input, pattern]);
  return result.rows[0].m;
}

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

  it("spells word boundaries out for PostgreSQL on PCRE's ASCII word class, not the locale's \\y", () => {
    const w = "[\\U00000030-\\U00000039\\U00000041-\\U0000005a\\U0000005f\\U00000061-\\U0000007a]";
    expect(compileRegex("\\b").pg).toBe(`(?:(?<=${w})(?!${w})|(?<!${w})(?=${w}))`);
    expect(compileRegex("\\B", "i").pg).toBe(`(?:(?<=${w})(?=${w})|(?<!${w})(?!${w}))`);
  });
});

describe("compileRegex: PCRE assertions, inline flags and quoting, in memory and in PostgreSQL", () => {
  it.each([
    // \b and \B: at the start, the end, between characters; é and 😀 are not word characters.
    ["\\bab", "", "ab", true],
    ["\\bab", "", "xab", false],
    ["\\bab", "", "x ab", true],
    ["\\bab", "", "éab", true],
    ["ab\\b", "", "ab", true],
    ["ab\\b", "", "abc", false],
    ["ab\\b", "", "ab-", true],
    ["a\\b", "", "a😀", true],
    ["\\b", "", "", false],
    ["\\b", "", " ", false],
    ["\\b", "", "_", true],
    ["a\\B", "", "ab", true],
    ["a\\B", "", "a", false],
    ["a\\B", "", "a b", false],
    ["\\Bb", "", "ab", true],
    ["\\Bb", "", "b", false],
    ["\\B", "", "", true],
    ["^\\B$", "", "", true],
    ["é\\B", "", "éé", true],
    ["^\\B", "", " x", true],
    ["^(?:\\b\\w+\\b\\W*)+$", "", "ab, cd", true],
    ["^(?:a\\B)+b$", "", "aab", true],
    // Not case-closed: with `i`, KELVIN SIGN and LONG S still are not word characters.
    ["a\\b", "i", "a\u212a", true],
    ["a\\B", "i", "a\u017f", false],
    ["(?i)\\bk", "", "K", true],
    // In a class \b stays backspace.
    ["[\\b]", "", "\b", true],
    ["[\\b]", "", "b", false],
    // \A, \z and \Z.
    ["\\Aa", "", "ab", true],
    ["\\Aa", "", "ba", false],
    ["\\Aa", "", "\na", false],
    ["b\\z", "", "ab", true],
    ["b\\z", "", "ab\n", false],
    ["\\A\\z", "", "", true],
    ["b\\Z", "", "ab", true],
    ["b\\Z", "", "ab\n", true],
    ["b\\Z", "", "ab\n\n", false],
    ["b\\Z", "", "ab\nc", false],
    ["^\\Z", "", "\n", true],
    ["\\Z", "", "", true],
    ["x|b\\Z", "", "b\n", true],
    ["a(?:b\\Z)?", "", "ac", true],
    // Inline flags: (?i) runs to the end of its group, across later alternatives.
    ["(?i)AB", "", "ab", true],
    ["A(?i)B", "", "ab", false],
    ["A(?i)B", "", "Ab", true],
    ["(?i:a)b", "", "Ab", true],
    ["(?i:a)b", "", "AB", false],
    ["(?:a(?i))b", "", "aB", false],
    ["^(a(?i)b|c)$", "", "C", true],
    ["(?i)a(?-i)b", "", "AB", false],
    ["(?i)a(?-i)b", "", "Ab", true],
    ["(?-i)a", "i", "A", false],
    ["(?-i:a)b", "i", "aB", true],
    ["(?-i:a)b", "i", "AB", false],
    ["(?i)^[^a]$", "", "A", false],
    // m ($options or inline): ^ and $ also at newlines inside the text; \A and \z never.
    ["^b$", "m", "a\nb\nc", true],
    ["^b$", "", "a\nb\nc", false],
    ["(?m)^b$", "", "a\nb\nc", true],
    ["(?m:^b)c$", "", "a\nbc", true],
    ["(?m:^b)$", "", "a\nb\nc", false],
    ["\\Ab", "m", "a\nb", false],
    ["a\\z", "m", "a\nb", false],
    ["^$", "m", "a\n\nb", true],
    ["a.b", "s", "a\nb", true],
    ["a.b", "", "a\nb", false],
    ["(?i)é", "", "É", true],
    ["(?s)a.b", "", "a\nb", true],
    ["a.b", "", "a\nb", false],
    ["(?s:a.)b", "", "a\nb", true],
    ["(?s:a).b", "", "a\nb", false],
    ["(?is)A.B", "", "a\nb", true],
    ["(?s)^.$", "", "😀", true],
    ["(?i-s)a.", "", "A\n", false],
    // \Q...\E: everything quoted is literal, quantifier syntax included; \E optional at the end.
    ["\\Qa.b\\E", "", "a.b", true],
    ["\\Qa.b\\E", "", "axb", false],
    ["^\\Q(a|b)*\\E$", "", "(a|b)*", true],
    ["^\\Qab\\E+$", "", "abbb", true],
    ["^\\Qa$", "", "a$", true],
    ["a{\\Q2\\E}", "", "a{2}", true],
    ["a{\\Q2\\E}", "", "aa", false],
    ["\\Q\\d\\E", "", "\\d", true],
    ["\\Q\\d\\E", "", "1", false],
    ["^[\\Q]-\\E]+$", "", "]-]", true],
    ["^[\\Q]-\\E]+$", "", "^", false],
    ["^a\\Eb$", "", "ab", true],
    ["(?i)\\Qab\\E", "", "AB", true],
  ])("%s (%s) on %j is %s", async (source, options, input, expected) => {
    const compiled = compileRegex(source, options);
    expect(compiled.js.test(input)).toBe(expected);
    expect(await pgMatches(compiled.pg, input)).toBe(expected);
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
    ["(?x)a b", /inline flag x is not supported \(only i, m and s are\)/],
    ["(?is-x:a)", /inline flag x is not supported/],
    ["a\\Zb", /\\Z is supported only at the end of the pattern/],
    ["(?:a\\Z)+", /\\Z is supported only at the end of the pattern/],
    ["(?:a\\Z|b)c", /\\Z is supported only at the end of the pattern/],
    ["\\b+", /nothing to repeat/],
    ["[\\B]", /unsupported escape \\B/],
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
