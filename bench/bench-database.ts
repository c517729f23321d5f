import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../lib/db/embedded-postgres";
import { migrate } from "../lib/db/migrate";
import { seedProject } from "../lib/testing/seed-project";
export { seedProject };

/**
 * A fresh, migrated database for one benchmark run: on DATABASE_URL's server when given, else on
 * an embedded PostgreSQL under ./.bench-data (port 54349). `cleanup` drops it and stops the server.
 */
export async function benchDatabase(label: string): Promise<{ url: string; cleanup: () => Promise<void> }> {
  let adminUrl = process.env.DATABASE_URL;
  let stop = async () => {};
  if (!adminUrl) {
    const server = await startEmbeddedPostgres({ dataDir: path.resolve(".bench-data"), port: 54349, database: "postgres" });
    adminUrl = server.url;
    stop = () => server.stop();
  }
  const name = `arca_bench_${label}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await migrate(url.toString(), path.resolve("prisma/migrations"));
  return {
    url: url.toString(),
    async cleanup() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await client.end();
      await stop();
    },
  };
}

/**
 * The usual start of a benchmark: a fresh database, a client on it (kept open for the
 * benchmark's own queries) and the seeded project's token secret. `cleanup` closes and drops.
 */
export async function benchProject(label: string, project: string): Promise<{ url: string; client: pg.Client; secret: string; cleanup: () => Promise<void> }> {
  const database = await benchDatabase(label);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  client.on("error", () => {}); // the cleanup drops the database under it
  const secret = await seedProject(client, project);
  return {
    url: database.url,
    client,
    secret,
    async cleanup() {
      await client.end().catch(() => {});
      await database.cleanup();
    },
  };
}
