import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { raw, sql } from "@/lib/db/sql";
import { compileFilter, indexDefinitions, pathExpression, valuesExpression } from "./compile-filter";
import { matchFilter } from "./match-filter";
import { parseFilter } from "./parse-filter";
import { quoteLiteral, textArrayLiteral } from "./sql-literal";
import type { Json } from "./types";

// The shared harness provides its database (ARCA_TEST_DATABASE_URL's server, or an embedded
// one); without any, the tests must fail, not skip.
const url = inject("databaseUrl") || process.env.ARCA_TEST_DATABASE_URL;
let client: pg.Client;

// Thrown inside each test, so a missing database fails them instead of skipping them.
function requireDatabase(): void {
  if (!url) throw new Error("ARCA_TEST_DATABASE_URL is not set");
}

beforeAll(async () => {
  if (!url) return;
  client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("CREATE TEMP TABLE query_docs (data jsonb NOT NULL)");
});

afterAll(async () => {
  await client?.end();
});

const keys = ["a", "b", "c", "0", "1"];
const strings = ["", "a", "b", "A", "ab", "aB", "ba", "é", "É", "😀", "\uE000", "a\nb", "B1", "10", "null"];

const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(0.5, -1.5, 10, 1e21, 2.25),
  fc.constantFrom(...strings),
);

const { value } = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 3, depthSize: "small", withCrossShrink: true },
    { arbitrary: scalar, weight: 4 },
    { arbitrary: fc.array(tie("value"), { maxLength: 3 }), weight: 2 },
    { arbitrary: fc.dictionary(fc.constantFrom(...keys), tie("value"), { maxKeys: 3 }), weight: 2 },
  ),
}));

// Operands are mostly scalars, which is what finds documents; containers test deep equality.
const operand: fc.Arbitrary<Json> = fc.oneof(
  { arbitrary: scalar, weight: 6 },
  { arbitrary: fc.array(scalar, { maxLength: 2 }), weight: 1 },
  { arbitrary: fc.dictionary(fc.constantFrom(...keys), scalar, { maxKeys: 2 }), weight: 1 },
);

const document = fc.dictionary(fc.constantFrom(...keys), value, { minKeys: 2, maxKeys: 5 });

const path = fc
  .oneof(
    { arbitrary: fc.array(fc.constantFrom(...keys), { minLength: 1, maxLength: 1 }), weight: 3 },
    { arbitrary: fc.array(fc.constantFrom(...keys), { minLength: 2, maxLength: 3 }), weight: 2 },
  )
  .map((p) => p.join("."));
const comparable = fc.oneof(scalar, fc.constantFrom("a", "b", "B", "é", 0, 1, 2, true, false));
const patterns = [
  "^a", "a$", "b", "^$", ".", "^.$", "[a-c]", "[^a]", "\\d", "\\w+", "é", "^(a|b)+$", "a{1,2}", "\\n",
  "(?:ab)?c*", "😀", "[😀-😂]", "\\s", "[A-Z]", "^[^a-z]*$", "^a.b$", "B|é", "",
  "\\bab", "a\\B", "(?i)AB", "\\Aa", "b\\z", "b\\Z", "(?s)^a.b$", "\\Qa\\E|\\b1",
];

const { filter, ops } = fc.letrec<{ filter: Record<string, unknown>; ops: Record<string, unknown>; cond: unknown }>(
  (tie) => ({
    filter: fc.oneof(
      { maxDepth: 3, depthSize: "small" },
      { arbitrary: fc.dictionary(path, tie("cond"), { minKeys: 1, maxKeys: 2 }), weight: 4 },
      fc.record({ $and: fc.array(tie("filter"), { minLength: 1, maxLength: 3 }) }),
      fc.record({ $or: fc.array(tie("filter"), { minLength: 1, maxLength: 3 }) }),
      fc.record({ $nor: fc.array(tie("filter"), { minLength: 1, maxLength: 2 }) }),
    ),
    cond: fc.oneof(operand, tie("ops")),
    ops: fc.oneof(
      fc.record({ $eq: operand }),
      fc.record({ $ne: operand }),
      fc.record({ $gt: comparable }),
      fc.record({ $gte: comparable }),
      fc.record({ $lt: comparable }),
      fc.record({ $lte: comparable }),
      fc.record({ $gt: comparable, $lt: comparable }),
      fc.record({ $in: fc.array(operand, { maxLength: 3 }) }),
      fc.record({ $nin: fc.array(operand, { maxLength: 3 }) }),
      fc.record({ $all: fc.array(operand, { maxLength: 2 }) }),
      fc.record({ $all: fc.array(fc.record({ $elemMatch: tie("filter") }), { minLength: 1, maxLength: 2 }) }),
      fc.record({ $exists: fc.boolean() }),
      fc.record({ $size: fc.integer({ min: 0, max: 3 }) }),
      fc.record({ $regex: fc.constantFrom(...patterns), $options: fc.constantFrom("", "i", "m", "s", "ims") }),
      fc.record({ $elemMatch: tie("filter") }),
      fc.record({ $elemMatch: tie("ops") }),
      fc.record({ $not: tie("ops") }),
    ),
  }),
);

async function selectIds(where: ReturnType<typeof sql>): Promise<string[]> {
  const query = sql`SELECT data->>'_id' AS id FROM query_docs d WHERE ${where} ORDER BY 1`.toQuery();
  const result = await client.query(query.text, query.values);
  return result.rows.map((row: { id: string }) => row.id);
}

describe("compileFilter against matchFilter on PostgreSQL", () => {
  it("selects exactly the documents the matcher accepts", async () => {
    requireDatabase();
    let cases = 0;
    let discriminating = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(document, { minLength: 50, maxLength: 50 }),
        fc.array(filter, { minLength: 40, maxLength: 40 }),
        async (docs, filters) => {
          const stored = docs.map((doc, i) => ({ ...doc, _id: `d${String(i).padStart(2, "0")}` }) as Json);
          await client.query("TRUNCATE query_docs");
          await client.query("INSERT INTO query_docs SELECT jsonb_array_elements($1::jsonb)", [JSON.stringify(stored)]);
          for (const raw of filters) {
            const node = parseFilter(raw);
            const expected = stored
              .filter((doc) => matchFilter(node, doc))
              .map((doc) => (doc as { _id: string })._id)
              .sort();
            const actual = await selectIds(compileFilter(node, sql`d.data`));
            expect({ filter: raw, ids: actual }).toEqual({ filter: raw, ids: expected });
            cases++;
            if (expected.length > 0 && expected.length < stored.length) discriminating++;
          }
        },
      ),
      { numRuns: 30 },
    );
    expect(cases).toBeGreaterThanOrEqual(1000);
    // Guards the generators: many filters must split the documents, or the test proves little.
    expect(discriminating / cases).toBeGreaterThan(0.2);
    console.info(`${cases} filters, ${discriminating} select some but not all documents`);
  });

  it("quotes nasty names in path literals", async () => {
    requireDatabase();
    const names = ["it's", 'say "hi"', "back\\slash", "a,b", "{x}", "NULL", " sp ace ", "", "é😀", "\\'\"", "$.x", "a.b"];
    for (const name of names) {
      const doc = JSON.stringify({ [name]: { [name]: name } });
      const text = `SELECT ($1::jsonb #> ${textArrayLiteral([name, name])}) #>> '{}' AS v, ${quoteLiteral(name)} AS q, jsonb_path_query_array($1::jsonb, ${quoteLiteral(`$.${JSON.stringify(name)}.${JSON.stringify(name)}`)}::jsonpath) AS a`;
      const result = await client.query(text, [doc]);
      expect(result.rows[0]).toEqual({ v: name, q: name, a: [name] });
    }
  });

  it("uses the expression indexes for equality filters", async () => {
    requireDatabase();
    // Like the documents table: one collection's rows among others, its indexes partial on it.
    await client.query("CREATE TEMP TABLE query_indexed (collection text NOT NULL, data jsonb NOT NULL)");
    await client.query(`INSERT INTO query_indexed
      SELECT CASE WHEN n % 10 = 0 THEN 'other' ELSE 'mine' END, jsonb_build_object('_id', 'i' || n, 'status', 's' || (n % 5000), 'tags', jsonb_build_array('t' || (n % 3000)),
        'a', jsonb_build_array(jsonb_build_object('b', 'v' || (n % 4000))))
      FROM generate_series(1, 20000) n`);
    // One document holding the value in an array: found through the GIN index, partial on arrays.
    await client.query(`INSERT INTO query_indexed VALUES ('mine', '{"_id": "array", "status": ["x", "s17"]}')`);
    const column = raw("data");
    let n = 0;
    for (const path of [["status"], ["tags"], ["a", "b"]]) {
      for (const def of indexDefinitions(column, path)) {
        const partial = def.predicate ? sql` AND ${def.predicate}` : raw("");
        const { text, values } = sql`CREATE INDEX ${raw(`query_idx_${++n}`)} ON query_indexed USING ${raw(def.method)} ${def.definition} WHERE collection = 'mine'${partial}`.toQuery();
        expect(values).toEqual([]);
        await client.query(text);
      }
    }
    await client.query("ANALYZE query_indexed");
    const explain = async (input: unknown) => {
      const query = sql`EXPLAIN SELECT * FROM query_indexed WHERE collection = 'mine' AND ${compileFilter(parseFilter(input), column)}`.toQuery();
      const plan = (await client.query(query.text, query.values)).rows.map((r: Record<string, string>) => r["QUERY PLAN"]).join("\n");
      return plan;
    };
    const status = await explain({ status: "s17" });
    expect(status).toMatch(/Bitmap Index Scan on query_idx_1/);
    expect(status).toMatch(/Bitmap Index Scan on query_idx_2/);
    // The index conditions prove the filter: no per-row recheck of it on the heap.
    expect(status).not.toMatch(/Filter:/);
    expect(await explain({ status: { $in: ["s1", "s2"] } })).toMatch(/Bitmap Index Scan/);
    expect(await explain({ tags: "t5" })).toMatch(/Index Scan on query_idx_[34]/);
    expect(await explain({ "a.b": "v7" })).toMatch(/Bitmap Index Scan on query_idx_6/);
    const count = async (input: unknown) => {
      const query = sql`SELECT count(*)::int AS n FROM query_indexed WHERE collection = 'mine' AND ${compileFilter(parseFilter(input), column)}`.toQuery();
      return (await client.query(query.text, query.values)).rows[0].n;
    };
    expect(await count({ status: "s17" })).toBe(5);
    expect(await count({ "a.b": "v7" })).toBe(5);
    expect(await count({ tags: "t5" })).toBe(7);
  });

  it("renders path expressions as deterministic literal text", () => {
    expect(pathExpression(raw("d.data"), ["a", "b"]).toQuery().text).toBe(`(d.data #> '{"a","b"}'::text[])`);
    expect(pathExpression(raw("data"), ["it's", 'q"\\']).toQuery().text).toBe(
      `(data #> E'{"it''s","q\\\\"\\\\\\\\"}'::text[])`,
    );
    expect(valuesExpression(raw("data"), ["a", "b"]).toQuery().text).toBe(
      `jsonb_path_query_array(data, '$."a"."b"[*]'::jsonpath)`,
    );
  });
});
