import { createHash } from "node:crypto";
import type pg from "pg";
import { pool } from "./pool";
import type { Sql } from "./sql";

/** Something that runs SQL: the pool, or the client of an open transaction. */
export type Queryable = Pick<pg.Pool, "query"> | pg.PoolClient;

export async function query<Row extends pg.QueryResultRow = Record<string, unknown>>(
  statement: Sql,
  db: Queryable = pool(),
  options: { prepared?: boolean } = {},
): Promise<Row[]> {
  const { text, values } = statement.toQuery();
  const result = options.prepared
    ? await db.query<Row>({ name: preparedName(text), text, values: values as unknown[] })
    : await db.query<Row>(text, values as unknown[]);
  return result.rows;
}

const preparedNames = new Map<string, string>();

/**
 * A name per statement text: each connection then parses and plans it once. Only for hot
 * statements whose plan does not depend on parameter values (no partial indexes to prove).
 */
function preparedName(text: string): string {
  let name = preparedNames.get(text);
  if (!name) {
    name = `arca_${createHash("sha1").update(text).digest("hex").slice(0, 16)}`;
    if (preparedNames.size < 1000) preparedNames.set(text, name);
  }
  return name;
}

export async function queryOne<Row extends pg.QueryResultRow = Record<string, unknown>>(
  statement: Sql,
  db: Queryable = pool(),
  options: { prepared?: boolean } = {},
): Promise<Row | undefined> {
  return (await query<Row>(statement, db, options))[0];
}

/** Runs `work` in one transaction; rolls back on any error and rethrows it. */
export async function transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool().connect();
  try {
    return await transactionOn(client, work);
  } finally {
    client.release();
  }
}

/** `transaction` on a client the caller holds (and releases): e.g. one holding a session lock. */
export async function transactionOn<T>(client: pg.PoolClient, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const committed: (() => void)[] = [];
  const rolledBack: (() => void)[] = [];
  try {
    await client.query("BEGIN");
    afterCommit.set(client, committed);
    afterRollback.set(client, rolledBack);
    const result = await work(client);
    await client.query("COMMIT");
    afterCommit.delete(client);
    afterRollback.delete(client);
    for (const fn of committed) fn();
    return result;
  } catch (error) {
    afterCommit.delete(client);
    afterRollback.delete(client);
    await client.query("ROLLBACK").catch(() => {});
    for (const fn of rolledBack) fn();
    throw error;
  }
}

const afterCommit = new WeakMap<object, (() => void)[]>();
const afterRollback = new WeakMap<object, (() => void)[]>();

/**
 * Runs `fn` if the open transaction of `db` rolls back (never for the autocommitting pool):
 * for cleaning up what was made outside the database for it (blobs written before their rows).
 */
export function onRollback(db: Queryable, fn: () => void): void {
  afterRollback.get(db)?.push(fn);
}

/**
 * Runs `fn` once what `db` wrote is committed: after COMMIT for the client of an open
 * `transaction`, at once (next microtask) for the autocommitting pool; never after a rollback.
 * For side effects that must not see uncommitted state (deleting the bytes of deleted files).
 */
export function onCommit(db: Queryable, fn: () => void): void {
  const list = afterCommit.get(db);
  if (list) list.push(fn);
  else queueMicrotask(fn);
}
