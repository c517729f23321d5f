import { AsyncLocalStorage } from "node:async_hooks";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../generated/prisma/client.ts";

/**
 * One pg pool and one Prisma client (over that pool) for the process. Hot paths use the pool with
 * parameterized SQL; admin tables use Prisma. Both doors (Next's route handler and the custom
 * server) share them through globalThis, since Next may load this module more than once.
 */
interface Database {
  pool: pg.Pool;
  /** For background workers: the same database without the API's statement timeout. */
  workerPool: pg.Pool;
  prisma: PrismaClient;
}

const holder = globalThis as typeof globalThis & { __arcaDatabase?: Database };

// BIGINT counters (files_size, documents_count) fit in a double for any realistic project.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** ARCA_PG_POOL_SIZE: connections in the server's pool (shares of it are reserved elsewhere, e.g. processor slots). */
export const poolSize = (): number => Number(process.env.ARCA_PG_POOL_SIZE || 20);

export function connectDatabase(url: string): Database {
  if (holder.__arcaDatabase) return holder.__arcaDatabase;
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize(),
    // Every statement on the shared pool is bounded, so one project's pathological filter or
    // regex cannot hold connections (and everyone's requests) for minutes: PostgreSQL cancels it
    // (57014, answered 503 with Retry-After). 0 switches it off. Migrations use their own client.
    statement_timeout: statementTimeoutMs(),
  });
  pool.on("error", (error) => console.error(`db: idle client error: ${error.message}`));
  // Workers (sweeps, flushes, compaction, deliveries) are not requests: a long batch is theirs to
  // take, and their connections cannot starve the API's. Few, opened on demand.
  const workerPool = new pg.Pool({ connectionString: url, max: Number(process.env.ARCA_PG_WORKER_POOL_SIZE || 5) });
  workerPool.on("error", (error) => console.error(`db: idle worker client error: ${error.message}`));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  holder.__arcaDatabase = { pool, workerPool, prisma };
  return holder.__arcaDatabase;
}

const background = new AsyncLocalStorage<true>();

/**
 * Runs `start` (and every timer and promise it creates, however late) as background work:
 * `pool()` there is the worker pool, without the API's statement timeout.
 */
export function runAsBackground<T>(start: () => T): T {
  return background.run(true, start);
}

/** ARCA_STATEMENT_TIMEOUT_MS: per statement on the pool; default 5,000 ms, 0 for none. */
export function statementTimeoutMs(): number {
  const value = Number(process.env.ARCA_STATEMENT_TIMEOUT_MS ?? 5000);
  return Number.isFinite(value) && value >= 0 ? value : 5000;
}

function database(): Database {
  if (holder.__arcaDatabase) return holder.__arcaDatabase;
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("The database is not connected (DATABASE_URL unset and no embedded server started).");
  return connectDatabase(url);
}

export const pool = (): pg.Pool => (background.getStore() ? database().workerPool : database().pool);
export const prisma = (): PrismaClient => database().prisma;

/** The URL the process's database was connected with (for a thread that connects on its own). */
export function databaseUrl(): string {
  const url = holder.__arcaDatabase?.pool.options.connectionString;
  if (!url) throw new Error("The database is not connected");
  return url;
}

export async function disconnectDatabase(): Promise<void> {
  const db = holder.__arcaDatabase;
  holder.__arcaDatabase = undefined;
  if (db) {
    await db.prisma.$disconnect().catch(() => {});
    await db.pool.end().catch(() => {});
    await db.workerPool.end().catch(() => {});
  }
}
