import { raw, sql } from "../db/sql";
import { queryOne, transaction } from "../db/query";
import { conflict, forbidden, notFound, validationError, type PropertyError } from "../errors";
import { forgetCollectionState } from "../documents/collection-state";
import { compileSchema } from "../documents/document-schema";
import { buildProcessorPlan } from "../processors/processor-plan";
import { mergePatch } from "../documents/merge-patch";
import { collectionIdErrors, collectionView, defaultSchema, isDefaultSchema, type CollectionRow, type CollectionView, type IndexSpec } from "./collection";
import { parseIndexes, syncIndexes } from "./collection-indexes";
import { isSystemName } from "./system-collections";
import { documentsCount } from "../projects/counters";

export type SaveMode = "create" | "replace" | "merge" | "edit";

/**
 * Creates (POST), saves (PUT: create or replace), merges (PATCH, RFC 7396) or edits (`edit`
 * maps the current definition to the new one: property paths) a collection definition, and makes its real indexes match `indexes`, all in one transaction: a unique index
 * over duplicates (409) or a bad schema (422) leaves nothing changed. `documents_count` and
 * `is_system` are read-only and ignored in bodies. System collections: 403.
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
  try {
    return await transaction(async (client) => {
      const current = await queryOne<CollectionRow>(
        sql`SELECT id, name, description, schema, indexes, documents_count FROM collections WHERE project_id = ${projectId} AND id = ${id} FOR UPDATE`,
        client,
      );
      if (mode === "create" && current) throw conflict("Collection already exists.");
      if ((mode === "merge" || mode === "edit") && !current) throw notFound("Collection not found.");
      // Changes apply to the definition as shown, so a schemaless collection's default schema is
      // the base a PATCH or a property path extends (it stays open to other properties).
      const base = current ? { name: current.name, description: current.description, schema: current.schema ?? defaultSchema(), indexes: current.indexes } : {};
      const merged = (mode === "merge" ? mergePatch(base, body) : mode === "edit" ? input.edit!(structuredClone(base)) : body) as Record<string, unknown>;
      const next = parseDefinition(merged);
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
      await syncIndexes(client, projectId, id, next.indexes);
      return { collection: collectionView(row), created: row.inserted };
    });
  } finally {
    forgetCollectionState(projectId, id);
  }
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
    buildProcessorPlan(schema as Record<string, unknown>); // 422: unknown kind, bad argument, array property, recursion
  }
  return { name, description, schema: schema as Record<string, unknown> | null, indexes: parseIndexes(body.indexes) };
}
