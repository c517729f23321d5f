import pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { ownerWithProject } from "./fixtures";
import { startTestServer, type TestServer } from "./test-server";

/**
 * The usual start of an API test file: a real server, an owner with a project and an
 * all-powerful token, and a direct database client for checks the API cannot make. Filled in
 * before the file's tests run, closed after.
 */
export interface ApiSuite {
  server: TestServer;
  owner: Awaited<ReturnType<typeof ownerWithProject>>;
  db: pg.Client;
}

export function apiSuite(): ApiSuite {
  const suite = {} as ApiSuite;
  beforeAll(async () => {
    suite.server = await startTestServer();
    suite.owner = await ownerWithProject(suite.server);
    suite.db = new pg.Client({ connectionString: inject("databaseUrl") });
    await suite.db.connect();
  });
  afterAll(async () => {
    await suite.db?.end();
    await suite.server?.close();
  });
  return suite;
}
