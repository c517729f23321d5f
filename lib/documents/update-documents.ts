import { raw, sql } from "../db/sql";
import { query } from "../db/query";
import { AppError, badRequest, notFound } from "../errors";
import type { ProjectScope } from "../collections/collection";
import { setOwn } from "../query/json-input";
import { applyUpdate, compileFilter, parseFilter } from "../query";
import type { Json } from "../query";
import { documentFilter, withFreshState } from "./collection-state";
import { newDocumentId } from "./document-id";
import { insertDocument, replaceDocuments } from "./document-statements";
import { prepareDocument } from "./prepare-document";
import { DOCUMENT_CONCURRENCY, mapBounded } from "../processors/processor-limits";
import { documentWriteTransaction } from "./write-transaction";

type Doc = Record<string, unknown>;

/** The answer of the action (CONTRACT §3): an insert names its document and nothing else. */
export type UpdateResult = { updated: number } | { upsertedId: string };

/**
 * `X-Action: update {filter, operation}`: MongoDB update operators (lib/query's applyUpdate, over
 * mingo) on every match, each result validated, in one transaction holding the rows.
 * `upsert`: when nothing matches, inserts one document built from the filter's equalities
 * (like MongoDB) with the operation applied, and answers its `upsertedId` alone. 404 for a missing collection unless upserting.
 */
export async function updateDocuments(
  scope: ProjectScope,
  input: { collectionId: string; filter: Record<string, unknown> | undefined; operation: unknown; upsert: boolean },
): Promise<UpdateResult> {
  const { projectId } = scope;
  const filter = parseFilter((await documentFilter(scope.projectId, input.collectionId, input.filter)) ?? {});
  applyUpdate({}, input.operation); // 400 for a malformed operation before any row is touched
  // Concurrent upserts of one filter all find nothing and all insert: the losers' inserts collide
  // (409) with the winner's document, which a second look finds and updates (as MongoDB retries
  // an upsert's duplicate key). A collision with another document stays a 409 after the retries.
  for (let attempt = 0; ; attempt++) {
    try {
      return await updateOnce(scope, input, filter);
    } catch (error) {
      if (!(error instanceof UpsertCollision)) throw error;
      if (attempt >= 2) throw error.conflict;
    }
  }
}

class UpsertCollision extends Error {
  constructor(readonly conflict: unknown) {
    super("upsert collided with a concurrent insert");
  }
}

function updateOnce(
  scope: ProjectScope,
  input: { collectionId: string; filter: Record<string, unknown> | undefined; operation: unknown; upsert: boolean },
  filter: ReturnType<typeof parseFilter>,
): Promise<UpdateResult> {
  const { projectId } = scope;
  return withFreshState(projectId, input.collectionId, (state) =>
    documentWriteTransaction(scope, state.schema, async (client) => {
      if (!state.exists && !input.upsert) throw notFound("Collection not found.");
      // Upserts of one filter take turns: a lock on nothing (no match yet) holds nothing, so
      // without this, concurrent upserts all found nothing and each inserted a document. A
      // transaction-scoped advisory lock (no transaction id, no row) on the collection and filter.
      if (input.upsert)
        await query(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`upsert ${projectId} ${input.collectionId} ${JSON.stringify(input.filter ?? {})}`}, 0))`, client);
      const rows = await query<{ data: Doc }>(
        sql`SELECT d.data FROM documents d WHERE d.project_id = ${projectId} AND d.collection_id = ${input.collectionId}
            AND ${compileFilter(filter, raw("d.data"))} ORDER BY d.id FOR UPDATE`,
        client,
      );
      // Every match validated first, then one statement writes them all (rows, counters, events).
      // Processors run per document, a few at a time, so a bulk update cannot pile up their work.
      const changes = await mapBounded(rows, DOCUMENT_CONCURRENCY, async ({ data: before }) => {
        const changed = applyUpdate(before as { [key: string]: Json }, input.operation);
        return { before, after: await prepareDocument(projectId, input.collectionId, state, before._id as string, changed, before, { scope, db: client }) };
      });
      await replaceDocuments(client, scope, input.collectionId, state, changes);
      if (rows.length > 0 || !input.upsert) return { updated: rows.length };
      const seed = equalities(input.filter ?? {});
      const changed = applyUpdate(seed as { [key: string]: Json }, input.operation);
      const id = newDocumentId(changed._id);
      const doc = await prepareDocument(projectId, input.collectionId, state, id, changed, undefined, { scope, db: client });
      try {
        await insertDocument(client, scope, input.collectionId, state, doc);
      } catch (error) {
        if (error instanceof AppError && error.kind === "conflict") throw new UpsertCollision(error);
        throw error;
      }
      return { upsertedId: id };
    }),
  );
}

/**
 * The plain equalities of a filter (`{a: 1}`, `{a: {$eq: 1}}`, the `$eq` beside other operators),
 * those of its top-level `$and` clauses included (as MongoDB takes them), as the base of an
 * upsert. A path matched twice (`{"a": 2, "a.b": 3}`, `$and: [{k: 2}, {k: 3}]`) is MongoDB's 400:
 * the document built would not match its own filter, so every retry would insert another.
 */
function equalities(filter: Record<string, unknown>, seed: Doc = {}, named: string[] = []): Doc {
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" && Array.isArray(value)) {
      for (const clause of value) if (clause && typeof clause === "object" && !Array.isArray(clause)) equalities(clause as Record<string, unknown>, seed, named);
      continue;
    }
    if (key.startsWith("$")) continue;
    let plain: unknown = value;
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const keys = Object.keys(value);
      if (keys.some((k) => k.startsWith("$"))) {
        if (!keys.includes("$eq")) continue;
        plain = (value as Doc).$eq;
      }
    }
    const clash = named.find((other) => other === key || other.startsWith(`${key}.`) || key.startsWith(`${other}.`));
    if (clash !== undefined) throw badRequest(`Cannot build the document to upsert: the filter matches the path ${clash === key ? key : `${clash} and ${key}`} twice`);
    named.push(key);
    const path = key.split(".");
    let node = seed;
    // Own properties only: `constructor.prototype.x` must build objects, not walk into Object.
    for (const segment of path.slice(0, -1)) {
      const next = Object.hasOwn(node, segment) ? node[segment] : undefined;
      if (next === null || typeof next !== "object" || Array.isArray(next)) setOwn(node, segment, {});
      node = node[segment] as Doc;
    }
    setOwn(node, path[path.length - 1], plain);
  }
  return seed;
}
