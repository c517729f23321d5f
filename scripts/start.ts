import fs from "node:fs";
import { spawnSync } from "node:child_process";
import { config } from "../lib/config";
import { startDatabase } from "../lib/db/start-database";
import { ensureConfirmedUser } from "../lib/auth/users";
import { appSecret } from "../lib/auth/app-secret";
import { startServer } from "../server";
import { stopBackgroundWorkers } from "../lib/background-workers";

/** `npm start`: build the dashboard if needed, bring up the database, serve on PORT. */
async function main() {
  process.env.NEXT_TELEMETRY_DISABLED ??= "1";
  if (!fs.existsSync(".next/BUILD_ID") || process.env.ARCA_REBUILD === "1") {
    console.info("start: building the dashboard (first run)...");
    const build = spawnSync("npx", ["next", "build"], { stdio: "inherit" });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  const cfg = config();
  appSecret();
  const database = await startDatabase(cfg);
  if (cfg.adminEmail && cfg.adminPassword) await ensureConfirmedUser(cfg.adminEmail, cfg.adminPassword);
  const server = await startServer({ port: cfg.port });
  console.info(`start: Arca is serving http://localhost:${cfg.port} (projects at http://<project>.${cfg.baseDomain}:${cfg.port})`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.info(`start: ${signal}, stopping`);
    server.close();
    server.closeAllConnections();
    await stopBackgroundWorkers();
    await database.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
