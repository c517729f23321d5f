import type { Hono } from "hono";
import { pool } from "../db/pool";
import { fileBlobStore } from "../files/file-blob-store";
import type { ApiEnv } from "../http/env";

/**
 * Probes for load balancers and orchestrators, on any host, without credentials.
 *   GET /health/        liveness: the process answers (no dependency is asked)
 *   GET /health/ready/  readiness: the database and the blob store answer, else 503
 */
const PROBE_TIMEOUT_MS = 2000;

export function bindHealthApi(app: Hono<ApiEnv>): void {
  app.get("/health", (c) => c.json({ status: "ok" }));
  app.get("/health/ready", async (c) => {
    const [database, blobs] = await Promise.all([probe(() => pool().query("SELECT 1")), probe(() => fileBlobStore().exists("health-probe"))]);
    const ready = database === "ok" && blobs === "ok";
    if (!ready) c.header("Retry-After", "5");
    return c.json({ status: ready ? "ready" : "unavailable", database, blobs }, ready ? 200 : 503);
  });
}

async function probe(check: () => Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
      }),
    ]);
    return "ok";
  } catch (error) {
    return `error: ${(error as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
}
