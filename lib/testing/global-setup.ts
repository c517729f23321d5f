import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres, type RunningPostgres } from "../db/embedded-postgres";
import { migrate } from "../db/migrate";

/**
 * One PostgreSQL for the whole run: ARCA_TEST_DATABASE_URL's server when given, else an embedded
 * one under .test-data. Each run gets a fresh database, migrated like production; test files
 * share it and keep apart by using their own projects and users.
 */
declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    /** A real S3 endpoint (Ceph RGW) for the S3 blob store's tests. */
    s3Endpoint: string;
  }
}

let server: RunningPostgres | undefined;
let adminUrl: string;
let database: string;

export async function setup(project: TestProject) {
  const external = process.env.ARCA_TEST_DATABASE_URL;
  if (external) adminUrl = external;
  else {
    const dataDir = path.resolve(".test-data");
    fs.mkdirSync(dataDir, { recursive: true });
    server = await startEmbeddedPostgres({
      dataDir,
      port: Number(process.env.ARCA_TEST_PG_PORT || 54339),
      database: "postgres",
    });
    adminUrl = server.url;
  }
  database = `arca_test_${Date.now().toString(36)}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  await migrate(url.toString(), path.resolve("prisma/migrations"));
  project.provide("databaseUrl", url.toString());
  project.provide("s3Endpoint", await startS3());
}

/**
 * ARCA_TEST_S3_ENDPOINT's server when given (keys: those of scripts/s3/start-s3.sh), else a
 * single-node Ceph RGW under .test-data/ceph-s3 (Debian's radosgw, ceph-mon, ceph-osd; .ci/run
 * installs them). Without either the S3 tests fail: they are never skipped.
 */
let stopS3 = async () => {};
async function startS3(): Promise<string> {
  if (process.env.ARCA_TEST_S3_ENDPOINT) return process.env.ARCA_TEST_S3_ENDPOINT;
  const port = Number(process.env.ARCA_TEST_S3_PORT || 7489);
  const env = { ...process.env, CEPH_BASE: path.resolve(".test-data/ceph-s3"), RGW_PORT: String(port) };
  try {
    execFileSync("bash", [path.resolve("scripts/s3/start-s3.sh")], { env, stdio: "pipe" });
  } catch (error) {
    const output = String((error as { stderr?: Buffer }).stderr ?? "") + String((error as { stdout?: Buffer }).stdout ?? "");
    console.error(`global setup: could not start Ceph RGW for the S3 tests (apt-get install radosgw ceph-mon ceph-osd):\n${output.slice(-2000)}`);
    return "http://127.0.0.1:1";
  }
  stopS3 = async () => {
    execFileSync("bash", [path.resolve("scripts/s3/stop-s3.sh")], { env, stdio: "ignore" });
  };
  return `http://127.0.0.1:${port}`;
}

export async function teardown() {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
  await admin.end();
  await server?.stop();
  await stopS3().catch(() => {});
}
