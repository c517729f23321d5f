/** The child of lib/testing/api-process.ts: the API server alone, on a free port. */
import { connectDatabase, disconnectDatabase } from "../db/pool";
import { startServer } from "../../server";

connectDatabase(process.env.DATABASE_URL!);
const server = await startServer({ port: 0, withDashboard: false });
console.log(`listening ${(server.address() as { port: number }).port}`);
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => void disconnectDatabase().then(() => process.exit(0)));
});
