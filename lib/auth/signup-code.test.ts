import { describe, expect, it } from "vitest";
import { CODE_LENGTH, formatSignupCode, newSignupCode, normalizeSignupCode } from "./signup-code";

describe("sign-up codes", () => {
  it("are 12 characters of Crockford base32 (60 bits), different each time", () => {
    const codes = new Set(Array.from({ length: 200 }, newSignupCode));
    expect(codes.size).toBe(200);
    for (const code of codes) expect(code).toMatch(/^[0-9ABCDEFGHJKMNPQRSTVWXYZ]{12}$/);
    expect(CODE_LENGTH * Math.log2(32)).toBeGreaterThanOrEqual(60);
  });

  it("are shown in groups of four", () => {
    expect(formatSignupCode("ABCDEFGHJKMN")).toBe("ABCD-EFGH-JKMN");
  });

  it("are read with or without dashes, in any case, with look-alike letters as digits", () => {
    expect(normalizeSignupCode("abcd-efgh-jkmn")).toBe("ABCDEFGHJKMN");
    expect(normalizeSignupCode(" ABCD EFGH JKMN ")).toBe("ABCDEFGHJKMN");
    expect(normalizeSignupCode("0O1I-L000-0000")).toBe("001110000000");
    expect(normalizeSignupCode("ABCD-EFGH-JKM")).toBeUndefined();
    expect(normalizeSignupCode("ABCD-EFGH-JKMU")).toBeUndefined();
    expect(normalizeSignupCode("12345678")).toBeUndefined();
  });
});
