import fs from "node:fs";
import { spawnSync } from "node:child_process";
import { exitOnStartFailure, runServer } from "./run-server";

/** `npm start`: build the dashboard if needed, bring up the database, serve on PORT. */
async function main() {
  process.env.NEXT_TELEMETRY_DISABLED ??= "1";
  if (!fs.existsSync(".next/BUILD_ID") || process.env.ARCA_REBUILD === "1") {
    console.info("start: building the dashboard (first run)...");
    const build = spawnSync("npx", ["next", "build"], { stdio: "inherit" });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  await runServer({ withDashboard: true });
}

main().catch(exitOnStartFailure);
