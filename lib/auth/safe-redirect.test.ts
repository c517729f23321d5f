import { describe, expect, it } from "vitest";
import { safeRedirect, signInPath } from "./safe-redirect";

describe("safeRedirect", () => {
  it("keeps paths on this site", () => {
    expect(safeRedirect("/projects/shop/files")).toBe("/projects/shop/files");
    expect(safeRedirect("/projects/shop?x=1#y")).toBe("/projects/shop?x=1#y");
  });
  it("refuses everything that could leave it", () => {
    for (const bad of ["//evil.example", "/\\evil.example", "https://evil.example/", "evil.example", "/\t/evil.example", "/\n/evil.example", "", undefined, null, 42, "javascript:alert(1)"])
      expect(safeRedirect(bad)).toBe("/projects");
  });
});

describe("signInPath", () => {
  it("carries the wanted page", () => {
    expect(signInPath("/projects/shop/members")).toBe("/signin?callbackUrl=%2Fprojects%2Fshop%2Fmembers");
    expect(signInPath("/")).toBe("/signin");
    expect(signInPath(undefined)).toBe("/signin");
    expect(signInPath("//evil.example")).toBe("/signin");
  });
});
