import path from "node:path";
import pg from "pg";
import { migrate } from "../db/migrate";

/**
 * A migrated database of a test file's own on the run's server (`inject("databaseUrl")`): for
 * tests of background work, which the suite's other servers, sharing the run's database, would
 * otherwise take part in. `drop` removes it.
 */
export async function ownDatabase(runUrl: string, label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${label}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: runUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = Object.assign(new URL(runUrl), { pathname: `/${name}` }).toString();
  await migrate(url, path.resolve("prisma/migrations"));
  return {
    url,
    async drop() {
      const admin = new pg.Client({ connectionString: runUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.end();
    },
  };
}
