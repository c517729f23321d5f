import { describe, expect, it } from "vitest";
import { formatBytes, joinLimit, PROJECT_ID_PATTERN, slugify, splitLimit } from "./format";

describe("formatBytes", () => {
  it("shows sizes the way people read them", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(10 * 1024 ** 2)).toBe("10 MB");
    expect(formatBytes(123.4 * 1024 ** 3)).toBe("123 GB");
    expect(formatBytes(-1)).toBe("0 B");
  });
});

describe("size limits", () => {
  it("round-trips through the largest whole unit", () => {
    expect(splitLimit(0)).toEqual({ amount: "0", unit: "MB" });
    expect(splitLimit(10 * 1024 ** 2)).toEqual({ amount: "10", unit: "MB" });
    expect(splitLimit(2 * 1024 ** 3)).toEqual({ amount: "2", unit: "GB" });
    expect(joinLimit("10", "MB")).toBe(10 * 1024 ** 2);
    expect(joinLimit("1.5", "GB")).toBe(1.5 * 1024 ** 3);
    expect(joinLimit("", "MB")).toBe(0);
    // Limits set through the API in plain bytes show, and save back, exactly.
    expect(splitLimit(1_500_000)).toEqual({ amount: "1500000", unit: "B" });
    expect(splitLimit(524)).toEqual({ amount: "524", unit: "B" });
    expect(splitLimit(1536)).toEqual({ amount: "1536", unit: "B" });
    expect(splitLimit(2048)).toEqual({ amount: "2", unit: "KB" });
    for (const bytes of [1, 524, 1023, 1024, 1_500_000, 10 * 1024 ** 2 + 1, 3 * 1024 ** 4, 5 * 1024 ** 4 + 1024]) {
      const { amount, unit } = splitLimit(bytes);
      expect(joinLimit(amount, unit), `${bytes}`).toBe(bytes);
    }
  });

  it("refuses what is not a size", () => {
    expect(joinLimit("-1", "MB")).toBeUndefined();
    expect(joinLimit("ten", "MB")).toBeUndefined();
  });
});

describe("slugify", () => {
  const valid = new RegExp(PROJECT_ID_PATTERN);
  it("turns a project name into a valid id", () => {
    expect(slugify("My First Project")).toBe("my-first-project");
    expect(slugify("  42 Shop!! ")).toBe("shop");
    expect(slugify("Café Übersicht")).toBe("cafe-ubersicht");
    expect(valid.test(slugify("My First Project"))).toBe(true);
    expect(slugify("x".repeat(100))).toHaveLength(63);
  });
});
