import { query } from "../db/query";
import { sql } from "../db/sql";

/**
 * Which project of an id this is: its creation instant (ms). A deleted project's id can be taken
 * again by anyone at once; whatever was bound to the old project (an open change feed) must not
 * follow the new one, so it keeps the incarnation it was opened on and compares.
 */
export type ProjectIncarnation = number;

/** SQL for the incarnation of the project row `p`, as loaded with it. */
export const INCARNATION_OF_P = sql`(extract(epoch FROM p.created_at) * 1000)::float8`;

/** The incarnation of each of `projectIds` that exists now (deleted ones are absent). */
export async function currentIncarnations(projectIds: string[]): Promise<Map<string, ProjectIncarnation>> {
  const rows = await query<{ id: string; incarnation: number }>(
    sql`SELECT p.id, ${INCARNATION_OF_P} AS incarnation FROM projects p WHERE p.id = ANY(${projectIds}::text[])`,
  );
  return new Map(rows.map((row) => [row.id, Number(row.incarnation)]));
}
