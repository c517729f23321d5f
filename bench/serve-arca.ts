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
// BENCH_MEMORY_LOG=<seconds>: the heap beside RSS on stderr, to tell a leak (heap grows) from an
// allocator or GC that keeps memory it may reuse (RSS grows, heap does not).
const memoryLog = Number(process.env.BENCH_MEMORY_LOG || 0);
if (memoryLog > 0) {
  const mib = (n: number) => (n / 1048576).toFixed(1);
  setInterval(() => {
    const m = process.memoryUsage();
    console.error(`memory: rss ${mib(m.rss)} heapUsed ${mib(m.heapUsed)} heapTotal ${mib(m.heapTotal)} external ${mib(m.external)} arrayBuffers ${mib(m.arrayBuffers)} MiB`);
  }, memoryLog * 1000).unref();
}
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    void disconnectDatabase().then(() => process.exit(0));
  });
});
