import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";

/**
 * Before the e2e run: `next build` when there is no build yet or any source under app/,
 * components/ or lib/ (or a root config) is newer than it. Unchanged sources: no 20 s rebuild.
 */
const BUILD_ID = ".next/BUILD_ID";
const SOURCES = ["app", "components", "lib"];
const ROOT_FILES = ["next.config.ts", "proxy.ts", "postcss.config.mjs", "package.json", "tsconfig.json"];
const SKIP = new Set(["node_modules", ".next"]);
// Tests beside the code do not change what is built.
const IGNORED = /\.test\.tsx?$/;

function newestMtime(entry: string): number {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return IGNORED.test(entry) ? 0 : stat.mtimeMs;
  let newest = 0;
  for (const child of fs.readdirSync(entry)) {
    if (SKIP.has(child)) continue;
    newest = Math.max(newest, newestMtime(path.join(entry, child)));
  }
  return newest;
}

function reason(): string | undefined {
  if (!fs.existsSync(BUILD_ID)) return "no build yet";
  const built = fs.statSync(BUILD_ID).mtimeMs;
  for (const entry of [...SOURCES, ...ROOT_FILES]) if (newestMtime(entry) > built) return `${entry} changed since the last build`;
  return undefined;
}

const why = reason();
if (!why) {
  console.info("build-if-needed: the build is up to date");
} else {
  console.info(`build-if-needed: building (${why})...`);
  const result = spawnSync("npx", ["next", "build"], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  process.exit(result.status ?? 1);
}
