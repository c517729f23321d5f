import { badRequest, notFound } from "../errors";
import { join, raw, sql, type Sql } from "../db/sql";
import { query, queryOne } from "../db/query";
import type { IndexSpec, ProjectScope } from "../collections/collection";
import { textConfig, textVector } from "../collections/collection-indexes";
import type { ListQuery } from "../lists/list-query";
import { projectDocument } from "../query/project-document";
import { compileFilter, parseFilter, pathExpression } from "../query";
import { collectionState, documentFilter } from "./collection-state";
import { documentsCount } from "../projects/counters";

type Doc = Record<string, unknown>;

/**
 * A page of a collection (CONTRACT §3) in one round trip: the filter compiled to SQL over
 * `d.data` with `project_id`/`collection_id` as parameters (custom plans see them as constants,
 * so the collection's partial expression indexes apply), the total from `count(*) OVER ()` (or
 * the exact `documents_count` when nothing filters), the collection row in the same query.
 */
export async function listDocuments(
  scope: ProjectScope,
  input: { collectionId: string; query: ListQuery },
): Promise<{ items: Doc[]; total: number; schema: Doc | null }> {
  const { projectId } = scope;
  const { collectionId, query: list } = input;
  const doc = raw("d.data");
  const conditions: Sql[] = [];
  if (list.filter) conditions.push(compileFilter(parseFilter(await documentFilter(projectId, collectionId, list.filter)), doc));
  if (list.text) {
    const state = await collectionState(projectId, collectionId);
    if (!state.exists) throw notFound("Collection not found.");
    const spec = state.indexes.find((i): i is Extract<IndexSpec, { type: "text" }> => i.type === "text");
    if (!spec) throw badRequest("Collection has no text index");
    conditions.push(sql`${textVector(doc, spec)} @@ websearch_to_tsquery(${textConfig(spec)}, ${list.text})`);
  }
  const filtered = conditions.length > 0;
  const where = filtered ? sql` AND ${join(conditions, " AND ")}` : raw("");
  // The sort keys, selected beside the id so the count and the top-N sort carry narrow rows; the
  // page's documents are then fetched by primary key (a window over whole documents copied every
  // match into a tuplestore: 10,000 matches of 5 kB spill to disk).
  const keys = list.sort.map(({ path }) => (path.length === 1 && path[0] === "_id" ? raw("d.id") : pathExpression(doc, path)));
  const direction = (i: number) => raw(list.sort[i].descending ? "DESC NULLS LAST" : "ASC NULLS FIRST");
  const order = join(keys.map((key, i) => sql`${key} ${direction(i)}`));
  const keyColumns = join(keys.map((key, i) => sql`${key} AS ${raw(`k${i}`)}`));
  const pageOrder = join(keys.map((_, i) => sql`p.${raw(`k${i}`)} ${direction(i)}`));
  const offset = (list.page - 1) * list.perPage;
  const rows = await query<{ documents_count: number; schema: Doc | null; data: Doc | null; total: number | null }>(
    sql`SELECT ${documentsCount("c")} AS documents_count, c.schema, x.data, x.total FROM collections c
        LEFT JOIN LATERAL (
          SELECT d.data, p.total FROM (
            SELECT d.id, ${keyColumns}, ${filtered ? raw("count(*) OVER ()") : raw("NULL::bigint")} AS total FROM documents d
            WHERE d.project_id = ${projectId} AND d.collection_id = ${collectionId}${where}
            ORDER BY ${order} LIMIT ${list.perPage} OFFSET ${offset}
          ) p
          JOIN documents d ON d.project_id = ${projectId} AND d.collection_id = ${collectionId} AND d.id = p.id
          ORDER BY ${pageOrder}
        ) x ON true
        WHERE c.project_id = ${projectId} AND c.id = ${collectionId}`,
  );
  if (rows.length === 0) throw notFound("Collection not found.");
  const first = rows[0];
  const items = rows.filter((r) => r.data).map((r) => r.data!);
  let total = filtered ? (first.total ?? 0) : first.documents_count;
  if (filtered && items.length === 0 && offset > 0) {
    const counted = await queryOne<{ n: number }>(
      sql`SELECT count(*) AS n FROM documents d WHERE d.project_id = ${projectId} AND d.collection_id = ${collectionId}${where}`,
    );
    total = counted?.n ?? 0;
  }
  const projected = list.fields || list.fieldsExclude
    ? items.map((item) => projectDocument(item as never, { fields: list.fields, fields_exclude: list.fieldsExclude }) as Doc)
    : items;
  return { items: projected, total: Number(total), schema: first.schema };
}
