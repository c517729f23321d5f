import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ALLOWED_CONTENT_TYPES, ALLOWED_CONTENT_TYPES_COUNT, isAllowedContentType } from "./allowed-content-types";

// The seed lives beside the repository (`<repo>/../shared/`); other checkouts may not have it.
const SEED = fileURLToPath(new URL("../../../shared/seed-interface.txt", import.meta.url));

/** The comma-separated line under the heading "Allowed content types of files". */
function seedEntries(text: string): string[] {
  const lines = text.split(/\r?\n/);
  const heading = lines.findIndex((line) => /^#+\s*Allowed content types of files\s*$/.test(line));
  expect(heading).toBeGreaterThan(-1);
  const list = lines.slice(heading + 1).find((line) => line.includes(",") && line.includes("/"));
  expect(list).toBeDefined();
  return list!.split(",").map((entry) => entry.trim());
}

describe("ALLOWED_CONTENT_TYPES", () => {
  it("holds the recorded number of distinct entries", () => {
    expect(ALLOWED_CONTENT_TYPES.size).toBe(ALLOWED_CONTENT_TYPES_COUNT);
    expect(ALLOWED_CONTENT_TYPES_COUNT).toBe(766);
  });

  it.runIf(existsSync(SEED))("matches the seed's list entry for entry", () => {
    const entries = seedEntries(readFileSync(SEED, "utf8"));
    expect(entries.length).toBe(ALLOWED_CONTENT_TYPES_COUNT);
    expect([...ALLOWED_CONTENT_TYPES]).toEqual(entries);
  });

  it.each([
    "application/pdf",
    "image/png",
    "image/jpeg",
    "image/svg+xml",
    "text/plain",
    "text/csv",
    "text/html",
    "application/json",
    "application/javascript",
    "application/octet-stream",
    "application/zip",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "audio/mpeg",
    "video/mp4",
    "x-conference/x-cooltalk",
    "application/andrew-inset",
  ])("allows %s", (type) => {
    expect(ALLOWED_CONTENT_TYPES.has(type)).toBe(true);
  });

  it.each(["application/x-elf", "application/wasm", "text/javascript", "font/woff2", "application/gzip", "image/avif"])(
    "does not list %s",
    (type) => {
      expect(ALLOWED_CONTENT_TYPES.has(type)).toBe(false);
    },
  );
});

describe("isAllowedContentType", () => {
  it.each<[string, boolean]>([
    ["image/png", true],
    ["IMAGE/PNG", true],
    ["text/plain; charset=utf-8", true],
    [" text/csv ", true],
    ["application/x-elf", false],
    ["application/wasm", false],
    ["", false],
    ["image", false],
    ["image/", false],
  ])("%j -> %s", (type, expected) => {
    expect(isAllowedContentType(type)).toBe(expected);
  });
});
