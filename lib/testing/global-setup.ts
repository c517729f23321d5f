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
}

export async function teardown() {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
  await admin.end();
  await server?.stop();
}
