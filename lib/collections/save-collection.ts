import type pg from "pg";
import { pool } from "../db/pool";
import { raw, sql } from "../db/sql";
import { queryOne, transactionOn } from "../db/query";
import { conflict, forbidden, notFound, validationError, type PropertyError } from "../errors";
import { forgetCollectionState } from "../documents/collection-state";
import { compileSchema } from "../documents/document-schema";
import { buildProcessorPlan } from "../processors/processor-plan";
import { mergePatch } from "../documents/merge-patch";
import { collectionIdErrors, collectionView, defaultSchema, isDefaultSchema, type CollectionRow, type CollectionView, type IndexSpec } from "./collection";
import { buildIndexes, dropUnwantedIndexes, lockCollectionIndexes, parseIndexes } from "./collection-indexes";
import { isSystemName } from "./system-collections";
import { documentsCount } from "../projects/counters";

export type SaveMode = "create" | "replace" | "merge" | "edit";

/**
 * Creates (POST), saves (PUT: create or replace), merges (PATCH, RFC 7396) or edits (`edit`
 * maps the current definition to the new one: property paths) a collection definition, and makes
 * its real indexes match `indexes`: a unique index over duplicates (409) or a bad schema (422)
 * leaves nothing changed. `documents_count` and `is_system` are read-only and ignored in bodies.
 * System collections: 403.
 *
 * Indexes are built before the definition's transaction and dropped after it, both without
 * locking the documents table that every project shares (collection-indexes.ts), under a lock
 * that serializes saves and deletes of this collection. A save that does not commit drops what it
 * built.
 */
export async function saveCollection(
  projectId: string,
  input: { id: string; body: Record<string, unknown>; mode: SaveMode; edit?: (definition: Record<string, unknown>) => Record<string, unknown> },
): Promise<{ collection: CollectionView; created: boolean }> {
  const { id, body, mode } = input;
  // Creating one is refused as any `_` id is (422, CONTRACT §4); changing one is a permission matter.
  if (isSystemName(id) && mode !== "create") throw forbidden("System collections cannot be created, changed or deleted");
  const idErrors = collectionIdErrors(id);
  if (idErrors.length) throw validationError("Validation error", idErrors);
  if (body._id !== undefined && body._id !== id)
    throw validationError("Validation error", [{ property: "_id", message: "must match the id in the path" }]);
  const indexClient = await pool().connect();
  let unlock: (() => Promise<void>) | undefined;
  try {
    unlock = await lockCollectionIndexes(indexClient, projectId, id);
    // A build over a big collection is long work, not a runaway query: no statement timeout for
    // this connection's index work (RESET below restores the pool's).
    await indexClient.query("SET statement_timeout = 0");
    const stored = await currentDefinition(indexClient, projectId, id);
    // The definition as it will be (the transaction below settles it again, under the row lock).
    if (!(mode === "create" && stored) && !((mode === "merge" || mode === "edit") && !stored))
      await buildIndexes(indexClient, projectId, id, nextDefinition(stored, input).indexes, { concurrently: true });
    // On the lock's own connection: waiting saves hold one connection each, never two.
    const saved = await transactionOn(indexClient, async (client) => {
      const current = await currentDefinition(client, projectId, id, { lock: true });
      if (mode === "create" && current) throw conflict("Collection already exists.");
      if ((mode === "merge" || mode === "edit") && !current) throw notFound("Collection not found.");
      const next = nextDefinition(current, input);
      // Whether this write made the collection comes from the INSERT itself: a concurrent create
      // can commit between the lookup above (which locks nothing when there is no row) and here.
      // A create meeting one is 409; a save replaces it (200).
      const row = await queryOne<CollectionRow & { inserted: boolean }>(
        sql`INSERT INTO collections (project_id, id, name, description, schema, indexes)
            VALUES (${projectId}, ${id}, ${next.name}, ${next.description}, ${next.schema === null ? null : JSON.stringify(next.schema)}::json, ${JSON.stringify(next.indexes)}::jsonb)
            ON CONFLICT (project_id, id) ${raw(mode === "create" ? "DO NOTHING" : "DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description, schema = EXCLUDED.schema, indexes = EXCLUDED.indexes")}
            RETURNING id, name, description, schema, indexes, ${documentsCount("collections")} AS documents_count, (xmax = 0) AS inserted`,
        client,
      );
      if (!row) throw conflict("Collection already exists.");
      await buildIndexes(client, projectId, id, next.indexes, { concurrently: false });
      return { collection: collectionView(row), created: row.inserted };
    });
    // Saved: an index left over (a drop that failed) is dropped by the collection's next save.
    await dropUnwantedIndexes(indexClient, projectId, id, saved.collection.indexes).catch((error) =>
      console.error(`collections: dropping indexes ${projectId}/${id} no longer wants: ${(error as Error).message}`),
    );
    return saved;
  } catch (error) {
    // Not saved: what this save built and the stored definition does not want goes again.
    if (unlock) {
      const stored = await currentDefinition(indexClient, projectId, id).then((row) => ({ row }), () => undefined);
      if (stored) await dropUnwantedIndexes(indexClient, projectId, id, stored.row?.indexes ?? []).catch(() => {});
    }
    throw error;
  } finally {
    forgetCollectionState(projectId, id);
    await unlock?.().catch(() => {});
    // A connection whose settings could not be restored is closed, not pooled.
    const reset = await indexClient.query("RESET statement_timeout").then(() => true, () => false);
    indexClient.release(reset ? undefined : true);
  }
}

async function currentDefinition(client: pg.PoolClient, projectId: string, id: string, options: { lock?: boolean } = {}): Promise<CollectionRow | undefined> {
  return queryOne<CollectionRow>(
    sql`SELECT id, name, description, schema, indexes, documents_count FROM collections WHERE project_id = ${projectId} AND id = ${id}${raw(options.lock ? " FOR UPDATE" : "")}`,
    client,
  );
}

/**
 * The definition a save makes of `current`. Changes apply to the definition as shown, so a
 * schemaless collection's default schema is the base a PATCH or a property path extends (it stays
 * open to other properties).
 */
function nextDefinition(current: CollectionRow | undefined, input: { body: Record<string, unknown>; mode: SaveMode; edit?: (definition: Record<string, unknown>) => Record<string, unknown> }) {
  const { body, mode } = input;
  const base = current ? { name: current.name, description: current.description, schema: current.schema ?? defaultSchema(), indexes: current.indexes } : {};
  const merged = (mode === "merge" ? mergePatch(base, body) : mode === "edit" ? input.edit!(structuredClone(base)) : body) as Record<string, unknown>;
  return parseDefinition(merged);
}

function parseDefinition(body: Record<string, unknown>): { name: string; description: string; schema: Record<string, unknown> | null; indexes: IndexSpec[] } {
  const errors: PropertyError[] = [];
  for (const key of Object.keys(body))
    if (!["_id", "name", "description", "schema", "indexes", "documents_count", "is_system"].includes(key))
      errors.push({ property: key, message: "is not a collection property" });
  const text = (key: "name" | "description") => {
    const value = body[key] ?? "";
    if (typeof value !== "string") errors.push({ property: key, message: "must be a string" });
    return typeof value === "string" ? value : "";
  };
  const name = text("name");
  const description = text("description");
  const schema = body.schema === undefined || isDefaultSchema(body.schema) ? null : body.schema;
  if (schema !== null && (typeof schema !== "object" || Array.isArray(schema))) errors.push({ property: "schema", message: "must be an object" });
  if (errors.length) throw validationError("Validation error", errors);
  if (schema) {
    compileSchema(schema as Record<string, unknown>, { checkArca: true });
    buildProcessorPlan(schema as Record<string, unknown>, { saving: true }); // 422: unknown kind, bad argument, array property, recursion, an input the schema closes off
  }
  return { name, description, schema: schema as Record<string, unknown> | null, indexes: parseIndexes(body.indexes) };
}
