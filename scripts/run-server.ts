import type { Server } from "node:http";
import { appSecret } from "../lib/auth/app-secret";
import { ensureConfirmedUser } from "../lib/auth/users";
import { stopBackgroundWorkers } from "../lib/background-workers";
import { sweepBeforeServing } from "../lib/collections/index-sweep";
import { config, ConfigError } from "../lib/config";
import { startDatabase } from "../lib/db/start-database";
import { startServer } from "../server";

/**
 * The process around the server, shared by `npm start` (scripts/start.ts) and the API-only entry
 * (scripts/serve-api.ts): database up (the embedded PostgreSQL owned by this process when no
 * DATABASE_URL), serve, and one way down for every way out. The order going down: stop
 * accepting and drop connections, stop the background workers (bounded: at most a few
 * seconds), close the pool and stop the embedded PostgreSQL, exit. SIGINT, SIGTERM and SIGHUP
 * exit 0 (the embedded PostgreSQL runs in its own session: a terminal's Ctrl-C reaches only us);
 * an uncaught exception or unhandled rejection is logged and exits 1 after the same steps; if
 * the steps hang, the process exits anyway after STOP_DEADLINE_MS and the embedded database's
 * `exit` handler still signals the postmaster. Only SIGKILL skips all this; the next start
 * finds the cluster without a live owner and stops it (lib/db/embedded-postgres.ts).
 */
const STOP_DEADLINE_MS = 15_000;

export async function runServer(options: { withDashboard: boolean }): Promise<Server> {
  const cfg = config();
  appSecret();
  let server: Server | undefined;
  let database: { stop(): Promise<void> } | undefined;
  let stopping = false;
  const stop = async (reason: string, code: number) => {
    if (stopping) return;
    stopping = true;
    console.info(`start: ${reason}, stopping`);
    setTimeout(() => {
      console.error(`start: not stopped after ${STOP_DEADLINE_MS / 1000} s, exiting`);
      process.exit(code || 1);
    }, STOP_DEADLINE_MS).unref();
    try {
      if (server) {
        server.close();
        server.closeAllConnections();
      }
      await stopBackgroundWorkers();
      await database?.stop();
    } catch (error) {
      console.error(`start: while stopping: ${(error as Error).message}`);
      code ||= 1;
    }
    process.exit(code);
  };
  process.on("SIGINT", () => void stop("SIGINT", 0));
  process.on("SIGTERM", () => void stop("SIGTERM", 0));
  // The terminal closed: as Ctrl-C (the embedded PostgreSQL, in its own session, hears neither).
  process.on("SIGHUP", () => void stop("SIGHUP", 0));
  process.on("uncaughtException", (error) => {
    console.error("start: uncaught exception:", error);
    void stop("uncaught exception", 1);
  });

  database = await startDatabase(cfg);
  if (cfg.adminEmail && cfg.adminPassword) {
    await ensureConfirmedUser(cfg.adminEmail, cfg.adminPassword).catch((error: { message: string; errors?: { property?: string; message: string }[] }) => {
      const reasons = error.errors?.map((e) => `${e.property === "email" ? "ARCA_ADMIN_EMAIL" : e.property === "password" ? "ARCA_ADMIN_PASSWORD" : e.property}: ${e.message}`);
      throw new ConfigError(`The admin user cannot be made: ${reasons?.join("; ") ?? error.message}`);
    });
  }
  await sweepBeforeServing();
  server = await startServer({ port: cfg.port, withDashboard: options.withDashboard });
  const port = (server.address() as { port: number }).port;
  console.info(
    `start: Arca is serving http://localhost:${port}${options.withDashboard ? "" : "/api/ (API only)"} (projects at http://<project>.${cfg.baseDomain}:${port})`,
  );
  return server;
}

/** How `npm start` and `npm run serve:api` end when the server cannot start. */
export function exitOnStartFailure(error: unknown): never {
  // A bad setting is the operator's to fix: its message says which; a stack would bury it.
  if (error instanceof ConfigError) console.error(`start: ${error.message}`);
  else console.error(error);
  process.exit(1);
}
