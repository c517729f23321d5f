import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../lib/db/embedded-postgres";
import { migrate } from "../lib/db/migrate";
export { seedProject } from "../lib/testing/seed-project";

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
