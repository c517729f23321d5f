import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Dependencies point one way (issue 17, item 10): the file domain knows no transport (HTTP
 * responses and bodies are built in lib/http and lib/api, which hand it plain values and
 * streams), and dashboard pages call domain functions, never the database.
 */
const root = path.resolve(__dirname, "..");

function sources(dir: string, pattern: RegExp): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(relative, pattern));
    else if (pattern.test(entry.name) && !entry.name.endsWith(".test.ts")) out.push(relative);
  }
  return out;
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?from\s+["']([^"']+)["']/g)].map((m) => m[1]);
}

describe("layering", () => {
  it("lib/files and lib/blob import neither lib/http, lib/api nor hono", () => {
    const offending = [...sources("lib/files", /\.ts$/), ...sources("lib/blob", /\.ts$/)].flatMap((file) =>
      importsOf(file)
        .filter((spec) => /(^|\/)(http|api)\//.test(spec) || /^(hono|@hono\/)/.test(spec))
        .map((spec) => `${file} -> ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it("dashboard pages and components never import the database or Prisma", () => {
    const offending = [...sources("app", /\.tsx?$/), ...sources("components", /\.tsx?$/)].flatMap((file) =>
      importsOf(file)
        .filter((spec) => /lib\/db\/|generated\/prisma|^@prisma\/|^pg$/.test(spec))
        .map((spec) => `${file} -> ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it("nothing imports the language detector's n-gram tables at start (~58 MiB of heap): only on first use", () => {
    const offending = [...sources("lib", /\.ts$/), ...sources("app", /\.tsx?$/), "server.ts"].flatMap((file) =>
      importsOf(file)
        .filter((spec) => /^eld(\/|$)/.test(spec))
        .map((spec) => `${file} -> ${spec}`),
    );
    expect(offending).toEqual([]);
  });
});
