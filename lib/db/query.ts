import type pg from "pg";
import { pool } from "./pool";
import type { Sql } from "./sql";

/** Something that runs SQL: the pool, or the client of an open transaction. */
export type Queryable = Pick<pg.Pool, "query"> | pg.PoolClient;

export async function query<Row extends pg.QueryResultRow = Record<string, unknown>>(
  statement: Sql,
  db: Queryable = pool(),
): Promise<Row[]> {
  const { text, values } = statement.toQuery();
  const result = await db.query<Row>(text, values as unknown[]);
  return result.rows;
}

export async function queryOne<Row extends pg.QueryResultRow = Record<string, unknown>>(
  statement: Sql,
  db: Queryable = pool(),
): Promise<Row | undefined> {
  return (await query<Row>(statement, db))[0];
}

/** Runs `work` in one transaction; rolls back on any error and rethrows it. */
export async function transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool().connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
