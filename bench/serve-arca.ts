/**
 * A benchmark child: Arca's real server (`startServer`, no dashboard) over the database URL given
 * as the first argument, with a temporary data directory. Prints `listening <port>`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resetConfig } from "../lib/config";
import { connectDatabase, disconnectDatabase } from "../lib/db/pool";
import { startServer } from "../server";

const url = process.argv[2];
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "arca-bench-"));
process.env.DATABASE_URL = url;
process.env.ARCA_DATA_DIR = dataDir;
resetConfig();
connectDatabase(url);
const server = await startServer({ port: 0, withDashboard: false });
console.log(`listening ${(server.address() as { port: number }).port}`);
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    void disconnectDatabase().then(() => process.exit(0));
  });
});
