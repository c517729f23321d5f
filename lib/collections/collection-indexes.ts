import { createHash } from "node:crypto";
import type pg from "pg";
import { raw, sql, join, type Sql } from "../db/sql";
import { query } from "../db/query";
import { conflict, validationError, type PropertyError } from "../errors";
import { indexDefinitions, pathExpression, quoteLiteral, textArrayLiteral } from "../query";
import type { IndexSpec } from "./collection";

/**
 * A collection's `indexes` as real PostgreSQL indexes on `documents`, partial to the collection
 * (`WHERE project_id = '<p>' AND collection_id = '<c>'`, literals, since index predicates take no
 * parameters). Expressions come from lib/query (`indexDefinitions`, `pathExpression`) so the
 * compiled filters match them. Names are deterministic: `di_<hash of project+collection>_<hash of
 * the statement>`, so one collection's indexes are found by prefix and a changed definition gets a
 * new name.
 */

/**
 * Language codes (ISO 639-1) and the PostgreSQL text search configurations they map to: every
 * Snowball language PostgreSQL 18 ships (CONTRACT §4: "as PostgreSQL has them"). A configuration's
 * own name (`"english"`) is taken too. An older external server without one: 422 at save.
 */
export const TEXT_LANGUAGES: Record<string, string> = {
  en: "english", ru: "russian", de: "german", fr: "french", es: "spanish", it: "italian", pt: "portuguese",
  nl: "dutch", sv: "swedish", no: "norwegian", da: "danish", fi: "finnish", hu: "hungarian", ro: "romanian", tr: "turkish",
  ar: "arabic", hy: "armenian", eu: "basque", ca: "catalan", el: "greek", et: "estonian", hi: "hindi", id: "indonesian",
  ga: "irish", lt: "lithuanian", ne: "nepali", sr: "serbian", ta: "tamil", yi: "yiddish",
};
const CONFIGURATIONS = new Set(Object.values(TEXT_LANGUAGES));

/** The configuration of a language as given (a code or a configuration's name). */
function configurationOf(language: string): string | undefined {
  return Object.hasOwn(TEXT_LANGUAGES, language) ? TEXT_LANGUAGES[language] : CONFIGURATIONS.has(language) ? language : undefined;
}

const PROPERTY = /^[^.$\u0000][^\u0000]*$/;
const KEYS: Record<string, ReadonlySet<string>> = {
  simple: new Set(["type", "property", "unique"]),
  compound: new Set(["type", "properties", "unique"]),
  text: new Set(["type", "property", "language", "unique"]),
};

/**
 * Every project's documents share one table, and each index of a collection is a partial index
 * of it that every write of every project checks: 1,000 of one collection made other projects'
 * inserts 4-6 times slower. A collection keeps a handful; 32 is generous.
 */
export const MAX_INDEXES = 32;

/** Validates and normalizes an `indexes` value (422 naming `indexes.<i>`). */
export function parseIndexes(value: unknown): IndexSpec[] {
  if (value === undefined || value === null) return [];
  const errors: PropertyError[] = [];
  if (!Array.isArray(value)) throw validationError("Validation error", [{ property: "indexes", message: "must be an array" }]);
  if (value.length > MAX_INDEXES) throw validationError("Validation error", [{ property: "indexes", message: `at most ${MAX_INDEXES} indexes on a collection` }]);
  const specs: IndexSpec[] = [];
  const seen = new Map<string, number>();
  value.forEach((entry, i) => {
    const at = `indexes.${i}`;
    const before = specs.length;
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) return void errors.push({ property: at, message: "must be an object" });
    const e = entry as Record<string, unknown>;
    const unique = e.unique === undefined ? false : e.unique;
    if (typeof unique !== "boolean") errors.push({ property: `${at}.unique`, message: "must be a boolean" });
    const validProperty = (p: unknown) => typeof p === "string" && PROPERTY.test(p) && !p.split(".").some((s) => s === "" || s === "__proto__");
    const keys = KEYS[e.type as string];
    if (keys) for (const key of Object.keys(e)) if (!keys.has(key)) errors.push({ property: `${at}.${key}`, message: `is not a key of a ${e.type as string} index` });
    switch (e.type) {
      case "simple":
        if (!validProperty(e.property)) errors.push({ property: `${at}.property`, message: "must be a property path" });
        else specs.push({ type: "simple", property: e.property as string, unique: unique === true });
        break;
      case "compound":
        if (!Array.isArray(e.properties) || e.properties.length < 1 || !e.properties.every(validProperty))
          errors.push({ property: `${at}.properties`, message: "must be an array of property paths" });
        else if (new Set(e.properties).size < e.properties.length) errors.push({ property: `${at}.properties`, message: "names a property twice" });
        else specs.push({ type: "compound", properties: e.properties as string[], unique: unique === true });
        break;
      case "text": {
        const language = e.language === undefined ? "en" : e.language;
        if (!validProperty(e.property)) errors.push({ property: `${at}.property`, message: "must be a property path" });
        // `unique: false` is taken (clients send one shape for every index); a unique text index is no such thing.
        else if (unique === true) errors.push({ property: `${at}.unique`, message: "a text index cannot be unique" });
        else if (typeof language !== "string" || !configurationOf(language))
          errors.push({ property: `${at}.language`, message: `must be one of ${Object.keys(TEXT_LANGUAGES).join(", ")} (or a configuration's name: english, ...)` });
        else specs.push({ type: "text", property: e.property as string, language });
        break;
      }
      default:
        errors.push({ property: `${at}.type`, message: "must be simple, compound or text" });
    }
    // The same index twice would be built twice and kept in step on every write, for nothing. (A
    // unique and a plain index on one property differ: the plain one also finds arrays holding a value.)
    if (specs.length > before) {
      const spec = specs[specs.length - 1];
      const key = JSON.stringify(spec.type === "compound" ? [spec.type, spec.properties, spec.unique] : spec.type === "simple" ? [spec.type, spec.property, spec.unique] : [spec.type, spec.property]);
      const first = seen.get(key);
      if (first !== undefined) errors.push({ property: at, message: `is the same index as indexes.${first}` });
      else seen.set(key, i);
    }
  });
  if (specs.filter((s) => s.type === "text").length > 1)
    errors.push({ property: "indexes", message: "a collection has at most one text index" });
  if (errors.length) throw validationError("Validation error", errors);
  return specs;
}

/** The text-search document of a text index, over `doc` (the same expression the index holds). */
export function textVector(doc: Sql, spec: Extract<IndexSpec, { type: "text" }>): Sql {
  const config = configurationOf(spec.language)!;
  return sql`to_tsvector(${raw(`${quoteLiteral(config)}::regconfig`)}, coalesce(${doc} #>> ${raw(pathText(spec.property))}, ''))`;
}

export function textConfig(spec: Extract<IndexSpec, { type: "text" }>): Sql {
  return raw(`${quoteLiteral(configurationOf(spec.language)!)}::regconfig`);
}

function pathText(property: string): string {
  return textArrayLiteral(property.split("."));
}

interface PlannedIndex {
  name: string;
  statement: string;
  /** The same build without the lock that stops writes to the documents table (no transaction). */
  concurrently: string;
}

const PREFIX_HASH_CHARS = 16;

export function collectionPrefix(projectId: string, collectionId: string): string {
  return `di_${hash(`${projectId}\u0000${collectionId}`).slice(0, PREFIX_HASH_CHARS)}_`;
}

/** The part of an index's name that names its collection (`collectionPrefix`). */
export function collectionPrefixOf(indexName: string): string {
  return indexName.slice(0, "di_".length + PREFIX_HASH_CHARS + 1);
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The CREATE INDEX statements for `specs` (each one or two, see lib/query's indexDefinitions). */
export function planIndexes(projectId: string, collectionId: string, specs: IndexSpec[]): PlannedIndex[] {
  const data = raw("data");
  const where = `WHERE project_id = ${quoteLiteral(projectId)} AND collection_id = ${quoteLiteral(collectionId)}`;
  // Keyed by the text the index's name hashes (unchanged for indexes without a predicate of their
  // own, so existing indexes keep their names).
  const planned = new Map<string, { unique: boolean; using: string; predicate?: string }>();
  const add = (index: { unique: boolean; using: string; predicate?: string }) =>
    planned.set(`${index.unique ? "UNIQUE " : ""}${index.using}${index.predicate ? ` WHERE ${index.predicate}` : ""}`, index);
  for (const spec of specs) {
    if (spec.type === "simple" && !spec.unique) {
      for (const def of indexDefinitions(data, spec.property.split(".")))
        add({ unique: false, using: `USING ${def.method} ${def.definition.toQuery().text}`, predicate: def.predicate?.toQuery().text });
    } else if (spec.type === "simple" || spec.type === "compound") {
      const paths = spec.type === "simple" ? [spec.property] : spec.properties;
      const columns = join(paths.map((p) => sql`(${pathExpression(data, p.split("."))})`)).toQuery().text;
      add({ unique: spec.unique === true, using: `USING btree (${columns})` });
    } else {
      add({ unique: false, using: `USING gin ((${textVector(data, spec).toQuery().text}))` });
    }
  }
  const prefix = collectionPrefix(projectId, collectionId);
  return [...planned].map(([body, index]) => {
    const name = prefix + hash(body).slice(0, 24);
    const condition = index.predicate ? `${where} AND ${index.predicate}` : where;
    const create = (how: string) => `CREATE ${index.unique ? "UNIQUE " : ""}INDEX ${how}"${name}" ON documents ${index.using} ${condition}`;
    return { name, statement: create(""), concurrently: create("CONCURRENTLY ") };
  });
}

/**
 * Builds the indexes `specs` needs that the collection lacks. Before the saving transaction, with
 * `concurrently` on a client outside any transaction: a plain CREATE INDEX holds a lock on the
 * documents table, which every project shares, that stops all their writes for the whole build
 * (seconds over a million documents). A concurrent build that fails leaves an invalid index: it is
 * dropped, and a unique index over duplicates is a 409; one left by a crash is dropped and built
 * again. Inside the transaction, plainly, for whatever the first pass did not leave in place, so
 * the definition never commits without its indexes. The caller serializes saves of one collection
 * (`lockCollectionIndexes`).
 */
export async function buildIndexes(client: pg.PoolClient, projectId: string, collectionId: string, specs: IndexSpec[], options: { concurrently: boolean }): Promise<void> {
  const drop = (name: string) => client.query(`DROP INDEX ${options.concurrently ? "CONCURRENTLY " : ""}IF EXISTS "${name}"`);
  const existing = await existingIndexes(client, projectId, collectionId);
  for (const index of planIndexes(projectId, collectionId, specs)) {
    const valid = existing.get(index.name);
    if (valid) continue;
    if (valid === false) await drop(index.name);
    try {
      await client.query(options.concurrently ? index.concurrently : index.statement);
    } catch (error) {
      if (options.concurrently) await drop(index.name).catch(() => {});
      throw indexError(error, specs);
    }
  }
}

/**
 * After the save (or its failure): drops, without locking the documents table, the collection's
 * indexes that `specs` (the stored definition) does not want.
 */
export async function dropUnwantedIndexes(client: pg.PoolClient, projectId: string, collectionId: string, specs: IndexSpec[]): Promise<void> {
  const wanted = new Set(planIndexes(projectId, collectionId, specs).map((index) => index.name));
  for (const name of (await existingIndexes(client, projectId, collectionId)).keys())
    if (!wanted.has(name)) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
}

/**
 * Serializes the index work of one collection across processes: a session advisory lock on
 * `client` (saves), or held by a transaction (`xact`: deletes) until it ends.
 */
export async function lockCollectionIndexes(client: pg.PoolClient, projectId: string, collectionId: string, options: { xact?: boolean } = {}): Promise<() => Promise<void>> {
  const key = `arca collection indexes ${JSON.stringify([projectId, collectionId])}`;
  const kind = options.xact ? "xact_" : "";
  // Shared with every other save: the orphan sweep (index-sweep.ts) waits for none of them to hold it.
  await client.query(`SELECT pg_advisory_${kind}lock_shared(${INDEX_SWEEP_LOCK}), pg_advisory_${kind}lock(hashtextextended($1, 0))`, [key]);
  return async () => {
    if (!options.xact)
      await client.query(`SELECT pg_advisory_unlock(hashtextextended($1, 0)), pg_advisory_unlock_shared(${INDEX_SWEEP_LOCK})`, [key]);
  };
}

/** Held shared by saves and deletes of collections, exclusively by the orphan index sweep. */
export const INDEX_SWEEP_LOCK = 7_042_101;

function indexError(error: unknown, specs: IndexSpec[]): unknown {
  if ((error as { code?: string }).code === "23505") return conflict("Cannot create a unique index: the collection already holds duplicate values");
  // 42704: a text search configuration an older external PostgreSQL does not have.
  const text = specs.findIndex((spec) => spec.type === "text");
  if ((error as { code?: string }).code === "42704" && text >= 0)
    return validationError("Validation error", [{ property: `indexes.${text}.language`, message: "is not available on this PostgreSQL server" }]);
  return error;
}

/** The collection's indexes by name, each with whether it is valid (a failed concurrent build is not). */
function existingIndexes(client: pg.PoolClient, projectId: string, collectionId: string): Promise<Map<string, boolean>> {
  return indexesNamed(client, collectionPrefix(projectId, collectionId));
}

/** Indexes on the documents table whose name starts with `prefix` (`di_`: every collection's). */
export async function indexesNamed(client: pg.PoolClient, prefix: string): Promise<Map<string, boolean>> {
  const rows = await query<{ name: string; valid: boolean }>(
    sql`SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = 'documents'::regclass AND starts_with(c.relname, ${prefix})`,
    client,
  );
  return new Map(rows.map((r) => [r.name, r.valid]));
}
