import { badRequest, notFound } from "../errors";
import { join, raw, sql, type Sql } from "../db/sql";
import { query } from "../db/query";
import type { IndexSpec, ProjectScope } from "../collections/collection";
import { textConfig, textVector } from "../collections/collection-indexes";
import type { SortKey } from "../lists/list-query";
import { compileFilter, parseFilter, pathExpression } from "../query";
import { collectionState, documentFilter } from "./collection-state";
import { csvColumns, csvRecord, csvValue, jsonLine, type TransferFormat } from "./transfer-format";

type Doc = Record<string, unknown>;

export const EXPORT_BATCH = 1000;
/** Documents' bytes one batch aims at: big documents come fewer at a time (memory, and the time to parse a batch). */
const BATCH_BYTES = 4 * 1024 * 1024;
const CHUNK_CHARS = 256 * 1024;
const SLICE_MS = 10;

export interface ExportInput {
  collectionId: string;
  format: TransferFormat;
  filter?: Record<string, unknown>;
  text?: string;
  /** As parsed by readListQuery: ends with `_id`, so the order is total. */
  sort: SortKey[];
  batchSize?: number;
}

/**
 * A collection's documents as JSON Lines or CSV, one text chunk per batch. The collection is
 * checked first (404, 400 for `text` without a text index), so the caller can still answer an
 * error before it commits to a 200; then the returned generator reads `batchSize` rows at a time
 * by keyset pagination on the sort keys (never OFFSET, never a cursor that pins a connection
 * and a snapshot while a slow client reads), each batch one short statement. The consumer pulls
 * the next batch only when it has sent the previous one, so memory stays at one batch.
 *
 * Not a snapshot: writes during the export may or may not show. Sorted by `_id` (the default)
 * every document that exists throughout is exported exactly once (`_id` never changes).
 */
export async function exportDocuments(scope: ProjectScope, input: ExportInput): Promise<AsyncGenerator<string>> {
  const state = await collectionState(scope.projectId, input.collectionId);
  if (!state.exists) throw notFound("Collection not found.");
  const doc = raw("d.data");
  const conditions: Sql[] = [];
  if (input.filter) conditions.push(compileFilter(parseFilter(await documentFilter(scope.projectId, input.collectionId, input.filter)), doc));
  if (input.text) {
    const spec = state.indexes.find((i): i is Extract<IndexSpec, { type: "text" }> => i.type === "text");
    if (!spec) throw badRequest("Collection has no text index");
    conditions.push(sql`${textVector(doc, spec)} @@ websearch_to_tsquery(${textConfig(spec)}, ${input.text})`);
  }
  const keys = input.sort.map(({ path, descending }) => ({
    id: path.length === 1 && path[0] === "_id",
    expression: path.length === 1 && path[0] === "_id" ? raw("d.id") : pathExpression(doc, path),
    descending,
  }));
  return encode(input, state.schema, batches(scope.projectId, input.collectionId, conditions, keys, input.batchSize ?? EXPORT_BATCH, input.format === "csv"));
}

async function* encode(input: ExportInput, schema: Doc | null, source: AsyncGenerator<Doc[]>): AsyncGenerator<string> {
  let columns: string[] | undefined;
  let sliceStart = performance.now();
  for await (const docs of source) {
    let text = "";
    if (input.format === "csv" && !columns) {
      columns = csvColumns(schema, docs);
      text += csvRecord(columns);
    }
    // Document by document, handing on every CHUNK_CHARS and letting the event loop turn every
    // SLICE_MS: a batch of big documents encoded in one go held every project's requests for 4 s.
    for (const d of docs) {
      text += columns ? csvRecord(columns.map((column) => csvValue(Object.hasOwn(d, column) ? d[column] : undefined))) : jsonLine(d);
      if (text.length >= CHUNK_CHARS) {
        yield text;
        text = "";
      }
      if (performance.now() - sliceStart > SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
    if (text) yield text;
  }
  // An empty collection still has its header.
  if (input.format === "csv" && !columns) yield csvRecord(csvColumns(schema, []));
}

interface Key {
  id: boolean;
  expression: Sql;
  descending: boolean;
}

async function* batches(projectId: string, collectionId: string, conditions: Sql[], keys: Key[], size: number, wholeFirstBatch: boolean): AsyncGenerator<Doc[]> {
  const order = join(keys.map((k) => sql`${k.expression} ${raw(k.descending ? "DESC NULLS LAST" : "ASC NULLS FIRST")}`));
  // The sort values of each row as text (`jsonb::text`, or the id), so a JSON null ("null") and
  // an absent value (SQL NULL) stay apart when they come back as the next batch's start.
  const values = join(keys.map((k, i) => sql`${k.id ? k.expression : sql`${k.expression}::text`} AS ${raw(`k${i}`)}`));
  let last: (string | null)[] | undefined;
  // Starts small and grows toward `size` while documents are small; shrinks for big ones. A CSV's
  // columns come from its first batch, which stays whole (the first `size` documents).
  let limit = wholeFirstBatch ? size : Math.min(size, 100);
  for (;;) {
    const where = [...conditions, ...(last ? [after(keys, last)] : [])];
    const rows = await query<Record<string, unknown> & { data: Doc }>(
      sql`SELECT d.data, pg_column_size(d.data) AS bytes, ${values} FROM documents d
          WHERE d.project_id = ${projectId} AND d.collection_id = ${collectionId}${where.length ? sql` AND ${join(where, " AND ")}` : raw("")}
          ORDER BY ${order} LIMIT ${limit}`,
    );
    if (rows.length > 0) yield rows.map((r) => r.data);
    if (rows.length < limit) return;
    const bytes = rows.reduce((sum, row) => sum + ((row.bytes as number) ?? 0), 0);
    limit = Math.max(1, Math.min(size, Math.floor((limit * BATCH_BYTES) / Math.max(1, bytes))));
    const end = rows[rows.length - 1];
    last = keys.map((_, i) => end[`k${i}`] as string | null);
  }
}

/**
 * Rows strictly after `last` in the order of `keys` (the keyset condition), spelled out for
 * mixed directions and PostgreSQL's null placement: ascending keys put NULL (absent) first,
 * descending ones last; jsonb's comparison operators follow the same btree order ORDER BY uses.
 */
function after(keys: Key[], last: (string | null)[]): Sql {
  const value = (i: number) => (keys[i].id ? sql`${last[i]}::text` : sql`${last[i]}::jsonb`);
  const equal = (i: number) => (last[i] === null ? sql`${keys[i].expression} IS NULL` : sql`${keys[i].expression} = ${value(i)}`);
  const beyond = (i: number): Sql => {
    const k = keys[i];
    if (!k.descending) return last[i] === null ? sql`${k.expression} IS NOT NULL` : sql`${k.expression} > ${value(i)}`;
    return last[i] === null ? raw("FALSE") : sql`(${k.expression} < ${value(i)} OR ${k.expression} IS NULL)`;
  };
  const branches: Sql[] = [];
  for (let i = 0; i < keys.length; i++) {
    branches.push(sql`(${join([...keys.slice(0, i).map((_, j) => equal(j)), beyond(i)], " AND ")})`);
    // Past a unique key (`_id`) nothing further decides.
    if (keys[i].id) break;
  }
  return sql`(${join(branches, " OR ")})`;
}
