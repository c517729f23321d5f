import { sql } from "../db/sql";
import { query } from "../db/query";
import { schemaFor, visit } from "./document-schema";

type Doc = Record<string, unknown>;

/**
 * `embed` properties (`{collection, field}`) hold the key of another document; reads show that
 * document instead (null when it is gone). Keys are looked up in one query per embed property.
 * A collection the principal may not read stays a key (`canRead`).
 */
export async function resolveEmbeds(
  projectId: string,
  collectionId: string,
  schema: Record<string, unknown> | null,
  docs: Doc[],
  canRead: (collection: string) => boolean,
): Promise<Doc[]> {
  if (!schema || docs.length === 0) return docs;
  const compiled = schemaFor(projectId, collectionId, schema);
  if (compiled.embeds.length === 0) return docs;
  const result = structuredClone(docs);
  for (const embed of compiled.embeds) {
    if (!canRead(embed.collection)) continue;
    const keys = new Set<string>();
    for (const doc of result) visit(doc, embed.path, (value) => value !== null && value !== undefined && keys.add(String(value)));
    if (keys.size === 0) continue;
    const key = embed.field === "_id" ? sql`id` : sql`(data #>> ${embed.field.split(".")}::text[])`;
    const rows = await query<{ key: string; data: Doc }>(
      sql`SELECT ${key} AS key, data FROM documents WHERE project_id = ${projectId} AND collection_id = ${embed.collection} AND ${key} = ANY(${[...keys]}::text[])`,
    );
    const found = new Map(rows.map((r) => [r.key, r.data]));
    for (const doc of result)
      visit(doc, embed.path, (value, set) => value !== null && value !== undefined && set(found.get(String(value)) ?? null));
  }
  return result;
}
