import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServeApi, type ServeApiProcess } from "../testing/serve-api-process";
import pg from "pg";
import { runningPostmaster, sharedBuffersMb, startEmbeddedPostgres } from "./embedded-postgres";

/**
 * Ownership of the embedded PostgreSQL across a kill -9 (issue 17, item 8), with real processes:
 * the server (scripts/serve-api.ts) on a fresh data dir and a free port, SIGKILLed; the cluster
 * it leaves is stopped by the next server, which starts its own, shares it with a CLI-like
 * process while it runs, and stops it on SIGTERM.
 */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "arca-embedded-"));
const databaseDir = path.join(dataDir, "postgres");
const processes: ServeApiProcess[] = [];

afterAll(async () => {
  for (const p of processes) await p.kill("SIGTERM");
  const left = runningPostmaster(databaseDir);
  if (left) process.kill(left, "SIGINT");
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Postmasters of this data dir: processes started as `postgres -D <dir>`. A backend retitles
 * itself, but only after its fork: one caught before that still shows the postmaster's command
 * line, so a process whose parent matches too is a child, not a second postmaster.
 */
function postmasters(): number[] {
  const found = new Map<number, number>(); // pid -> parent pid
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      const fields = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const [state, parent] = fields.slice(fields.lastIndexOf(")") + 2).split(" ");
      if (state !== "Z" && argv[argv.indexOf("-D") + 1] === databaseDir && argv.indexOf("-D") > 0) found.set(Number(name), Number(parent));
    } catch {
      // gone meanwhile
    }
  }
  return [...found].filter(([, parent]) => !found.has(parent)).map(([pid]) => pid);
}

/** The session id of a process (field 6 of /proc/<pid>/stat, counted after the command name). */
const sessionOf = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]);
};

describe("embedded PostgreSQL ownership", () => {
  it("stops the cluster a SIGKILLed server left, runs exactly one, shares it while the owner lives, stops it on SIGTERM", async () => {
    const port = await freePort();
    const env = {
      DATABASE_URL: undefined,
      ARCA_DATA_DIR: dataDir,
      ARCA_PG_PORT: String(port),
      ARCA_SECRET: "embedded-test-secret",
      SMTP_URL: undefined,
    };
    const first = await startServeApi(env, 120_000);
    processes.push(first);
    expect((await fetch(`${first.url}/api/health`)).status).toBe(200);
    const stale = runningPostmaster(databaseDir);
    expect(stale).toBeGreaterThan(0);
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, "postgres.owner"), "utf8")).pid).toBe(first.child.pid);

    // kill -9 skips every handler: the cluster outlives its owner (the reported bug's setting).
    await first.kill("SIGKILL");
    expect(runningPostmaster(databaseDir)).toBe(stale);

    const second = await startServeApi(env, 120_000);
    processes.push(second);
    expect((await fetch(`${second.url}/api/health`)).status).toBe(200);
    const own = runningPostmaster(databaseDir);
    expect(own).toBeGreaterThan(0);
    expect(own).not.toBe(stale);
    expect(postmasters()).toEqual([own]);
    expect(second.output()).toContain(`stopping the embedded PostgreSQL (pid ${stale})`);
    // In a session of its own: a terminal's Ctrl-C (SIGINT to the server's process group) does not
    // shut it down under the server's last writes; the server stops it after them.
    expect(sessionOf(own!)).toBe(own);
    expect(sessionOf(own!)).not.toBe(sessionOf(second.child.pid!));

    // A second Arca process while the owner lives (the CLI): shares the cluster, never stops it.
    const cli = await startEmbeddedPostgres({ dataDir, port });
    expect(cli.owned).toBe(false);
    // The cluster runs with shared_buffers sized to the machine, not PostgreSQL's 128 MB default.
    const client = new pg.Client({ connectionString: cli.url });
    await client.connect();
    const shared = (await client.query("SELECT setting::bigint * 8 / 1024 AS mb FROM pg_settings WHERE name = 'shared_buffers'")).rows[0];
    await client.end();
    expect(Number(shared.mb)).toBe(sharedBuffersMb());
    await cli.stop();
    // Run without the server's ARCA_PG_PORT, it finds the port in the cluster's lock file.
    const elsewhere = await startEmbeddedPostgres({ dataDir, port: port === 1 ? 2 : port - 1 });
    expect(elsewhere.owned).toBe(false);
    expect(new URL(elsewhere.url).port).toBe(String(port));
    await elsewhere.stop();
    expect(runningPostmaster(databaseDir)).toBe(own);
    expect((await fetch(`${second.url}/api/health/ready`)).status).toBe(200);

    expect(await second.kill("SIGTERM")).toBe(0);
    expect(postmasters()).toEqual([]);
    expect(runningPostmaster(databaseDir)).toBeUndefined();
    expect(fs.existsSync(path.join(dataDir, "postgres.owner"))).toBe(false);
  }, 240_000);
});

describe("embedded PostgreSQL held by an arca command", () => {
  it("a server waits for the command to finish instead of sharing the cluster the command will stop, then runs its own", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "arca-embedded-cli-"));
    const clusterDir = path.join(dir, "postgres");
    const port = await freePort();
    const env = { DATABASE_URL: undefined, ARCA_DATA_DIR: dir, ARCA_PG_PORT: String(port), ARCA_SECRET: "embedded-test-secret", SMTP_URL: undefined };
    try {
      const command = await startEmbeddedPostgres({ dataDir: dir, port, lasting: false });
      expect(command.owned).toBe(true);
      const commandPostmaster = runningPostmaster(clusterDir);
      let served = false;
      const pending = startServeApi(env, 120_000).then((server) => {
        served = true;
        processes.push(server);
        return server;
      });
      // Sharing, the server answered within seconds, and lost its database when the command ended.
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      expect(served).toBe(false);
      expect(runningPostmaster(clusterDir)).toBe(commandPostmaster);
      await command.stop();

      const server = await pending;
      expect(server.output()).toContain("waiting for the arca command");
      expect((await fetch(`${server.url}/api/health/ready`)).status).toBe(200);
      expect(JSON.parse(fs.readFileSync(path.join(dir, "postgres.owner"), "utf8"))).toMatchObject({ pid: server.child.pid, lasting: true });
      // A command while the server runs shares the server's cluster, and leaves it running.
      const later = await startEmbeddedPostgres({ dataDir: dir, port, lasting: false });
      expect(later.owned).toBe(false);
      await later.stop();
      expect((await fetch(`${server.url}/api/health/ready`)).status).toBe(200);
      expect(await server.kill("SIGTERM")).toBe(0);
      expect(runningPostmaster(clusterDir)).toBeUndefined();
    } finally {
      const left = runningPostmaster(clusterDir);
      if (left) process.kill(left, "SIGINT");
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});

describe("sharedBuffersMb", () => {
  it("takes a quarter of the memory, between 128 MB and 2 GB", () => {
    const gb = 1024 ** 3;
    expect(sharedBuffersMb(256 * 1024 ** 2)).toBe(128);
    expect(sharedBuffersMb(4 * gb)).toBe(1024);
    expect(sharedBuffersMb(24 * gb)).toBe(2048);
  });
});
