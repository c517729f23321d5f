import type { Config } from "../config";
import { startEmbeddedPostgres } from "./embedded-postgres";
import { migrate } from "./migrate";
import { connectDatabase, disconnectDatabase } from "./pool";

/**
 * Brings the database up for a process: DATABASE_URL when given, else the embedded server under
 * the data dir; applies pending migrations; connects the shared pool. Returns how to stop it all.
 * `lasting: false` for a short-lived process (an `arca` command): see lib/db/embedded-postgres.ts.
 */
export async function startDatabase(config: Config, options: { lasting?: boolean } = {}): Promise<{ url: string; stop(): Promise<void> }> {
  let url = config.databaseUrl;
  let stopServer = async () => {};
  if (!url) {
    const server = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.pgPort, lasting: options.lasting, ownSession: options.lasting !== false });
    url = server.url;
    stopServer = server.stop;
  }
  const applied = await migrate(url);
  if (applied.length) console.info(`db: applied migrations ${applied.join(", ")}`);
  process.env.DATABASE_URL = url;
  connectDatabase(url);
  return {
    url,
    async stop() {
      await disconnectDatabase();
      await stopServer();
    },
  };
}
