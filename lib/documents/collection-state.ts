import { sql } from "../db/sql";
import { queryOne, type Queryable } from "../db/query";
import type { IndexSpec } from "../collections/collection";
import { withDatetimeOperands } from "../query/datetime-operands";
import { schemaFor } from "./document-schema";

/**
 * What a document write needs to know of its collection (exists? schema? indexes?), cached in
 * the process so a create is one round trip. Every write statement carries the cached schema as
 * a guard (`schemaGuard`); when another process changed it, the statement does nothing, the
 * caller forgets the entry and retries with a fresh one (`withFreshState`).
 */
export interface CollectionState {
  exists: boolean;
  schema: Record<string, unknown> | null;
  indexes: IndexSpec[];
}

const cache = new Map<string, CollectionState>();
const key = (projectId: string, collectionId: string) => `${projectId}\u0000${collectionId}`;

export async function collectionState(projectId: string, collectionId: string, db?: Queryable): Promise<CollectionState> {
  const hit = cache.get(key(projectId, collectionId));
  if (hit) return hit;
  const row = await queryOne<{ schema: Record<string, unknown> | null; indexes: IndexSpec[] }>(
    sql`SELECT schema, indexes FROM collections WHERE project_id = ${projectId} AND id = ${collectionId}`,
    db,
  );
  const state: CollectionState = row ? { exists: true, schema: row.schema, indexes: row.indexes ?? [] } : { exists: false, schema: null, indexes: [] };
  // A missing collection is not cached: it appears with the first write.
  if (row) {
    cache.set(key(projectId, collectionId), state);
    if (cache.size > 50_000) cache.delete(cache.keys().next().value!);
  }
  return state;
}

export function forgetCollectionState(projectId: string, collectionId: string): void {
  cache.delete(key(projectId, collectionId));
}

/** True when the stored schema is still the one the write was validated against. */
export function schemaGuard(projectId: string, collectionId: string, state: CollectionState) {
  return sql`((SELECT schema::jsonb FROM collections WHERE project_id = ${projectId} AND id = ${collectionId}) IS NOT DISTINCT FROM ${state.schema === null ? null : JSON.stringify(state.schema)}::jsonb)`;
}

/** Thrown by a write whose guard failed; `withFreshState` retries it. */
export class StaleCollectionState extends Error {}

export async function withFreshState<T>(projectId: string, collectionId: string, work: (state: CollectionState) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const state = await collectionState(projectId, collectionId);
    try {
      return await work(state);
    } catch (error) {
      // 23503: the collection row was deleted under this write (a collection DELETE committed
      // between the write's guard and its insert): again, it creates the collection anew.
      const code = (error as { code?: string }).code;
      const retry = error instanceof StaleCollectionState || code === "40P01" || code === "23503";
      if (!retry || attempt >= 4) throw error;
      forgetCollectionState(projectId, collectionId);
    }
  }
}

/**
 * A filter over a collection's documents with its datetime operands in the stored form
 * (lib/query/datetime-operands.ts): `{"when": {"$gt": "2024-03-01T10:00:00+01:00"}}` compares
 * instants, not spellings.
 */
export async function documentFilter<T extends Record<string, unknown> | undefined>(projectId: string, collectionId: string, filter: T): Promise<T> {
  if (!filter) return filter;
  const state = await collectionState(projectId, collectionId);
  if (!state.schema) return filter;
  return withDatetimeOperands(filter, schemaFor(projectId, collectionId, state.schema).datetimes, (date) => date.toISOString()) as T;
}
