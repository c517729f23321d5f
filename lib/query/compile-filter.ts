import { raw, sql, join, type Sql } from "@/lib/db/sql";
import { isArrayIndex } from "./resolve-path";
import { jsonPath, quoteLiteral, textArrayLiteral } from "./sql-literal";
import type { FilterNode, Json, OperatorNode } from "./types";

/**
 * Compiles a parsed filter to a boolean SQL expression over the JSONB `doc`, selecting exactly
 * the documents `matchFilter` accepts. Values and jsonpaths travel as bind parameters; the only
 * literals in the text are the paths of the index-friendly forms (see `indexDefinitions`).
 *
 * Three-valued logic: atoms may yield NULL (a missing property); that only ever means "false"
 * in WHERE as long as negation is written `IS NOT TRUE`, never `NOT`.
 */
export function compileFilter(node: FilterNode, doc: Sql): Sql {
  return new FilterCompiler().filter(node, doc);
}

/**
 * The property at `path` as `(<doc> #> '{...}'::text[])`. Deterministic text with the path as a
 * literal, so that an expression index built from it matches the compiled filters.
 */
export function pathExpression(doc: Sql, path: readonly string[]): Sql {
  return sql`(${doc} #> ${raw(textArrayLiteral(path))})`;
}

/**
 * Every value a dotted path reaches, array elements unwrapped, as one JSONB array:
 * `jsonb_path_query_array(<doc>, '$."a"."b"[*]'::jsonpath)`. Lax mode walks into arrays on the
 * way, like the matcher; a GIN index on it serves equality on dotted paths.
 */
export function valuesExpression(doc: Sql, path: readonly string[]): Sql {
  return sql`jsonb_path_query_array(${doc}, ${raw(quoteLiteral(jsonPath(path, "[*]")))}::jsonpath)`;
}

export interface IndexDefinition {
  method: "btree" | "gin";
  /** The parenthesized column list: `CREATE INDEX <name> ON <table> USING <method> <definition>`. */
  definition: Sql;
  /** A condition the index is partial on (`WHERE <predicate>`), beside the collection's own. */
  predicate?: Sql;
}

/**
 * Array membership needs an array. The GIN index for it is partial on this condition, so it holds
 * only documents whose property is an array and the scalar matches of `{p: v}` come from the
 * btree `=` alone (a full GIN index returned them as well, each rechecked on its heap page).
 */
function isArray(property: Sql): Sql {
  return sql`jsonb_typeof(${property}) = 'array'`;
}

/**
 * The expression indexes that make `compileFilter` index-friendly for a property. `doc` must be
 * the bare column (`raw("data")`) as the table knows it, and the same column must be passed to
 * `compileFilter` (an alias prefix such as `d.data` is fine at query time).
 *
 * - btree on `pathExpression`: unique indexes and sorting; together with the GIN below it serves
 *   `{p: v}`, `$eq`, `$in`, `$all` for a top-level `p` (BitmapOr of `= v` and `@> [v]`).
 * - GIN (jsonb_path_ops) on `pathExpression`, partial on array values: the array-membership half
 *   of top-level equality (a BitmapOr whose GIN half is empty while no document holds an array).
 * - GIN (jsonb_path_ops) on `valuesExpression`, for dotted paths without numeric segments:
 *   equality, `$in`, `$all` with scalar values compile to `<values> @> '[v]'`.
 * Range operators, `$ne`, `$regex` and equality on objects or arrays under dotted paths are not
 * served by these indexes (they stay exact, as a filter).
 */
export function indexDefinitions(doc: Sql, path: readonly string[]): IndexDefinition[] {
  const property = pathExpression(doc, path);
  if (path.length === 1) {
    return [
      { method: "btree", definition: sql`((${property}))` },
      { method: "gin", definition: sql`((${property}) jsonb_path_ops)`, predicate: isArray(property) },
    ];
  }
  const defs: IndexDefinition[] = [{ method: "btree", definition: sql`((${property}))` }];
  if (!path.some(isArrayIndex)) {
    defs.push({ method: "gin", definition: sql`((${valuesExpression(doc, path)}) jsonb_path_ops)` });
  }
  return defs;
}

const TRUE = raw("TRUE");
const FALSE = raw("FALSE");

/** Where a field's values come from: a set (`SELECT ... AS v`) plus the index-friendly shapes. */
interface Source {
  /** A subquery yielding the values found, one per row, as column `v`. */
  found: Sql;
  /** `(root #> '{p}')` when the path is one member of an object root. */
  property?: Sql;
  /** `valuesExpression` when the path is dotted without numeric segments. */
  values?: Sql;
  /** The values as they are, arrays not opened (an element under `$elemMatch`; see `matchFilter`). */
  whole?: boolean;
}

class FilterCompiler {
  private aliases = 0;

  private alias(prefix: string): Sql {
    return raw(`_q${prefix}${++this.aliases}`);
  }

  filter(node: FilterNode, doc: Sql): Sql {
    switch (node.kind) {
      case "and":
        return node.children.length === 0 ? TRUE : sql`(${join(node.children.map((c) => this.filter(c, doc)), " AND ")})`;
      case "or":
        return sql`(${join(node.children.map((c) => this.filter(c, doc)), " OR ")})`;
      case "nor":
        return sql`((${join(node.children.map((c) => this.filter(c, doc)), " OR ")}) IS NOT TRUE)`;
      case "field": {
        const source = this.source(doc, node.path);
        return this.all(node.ops, source);
      }
    }
  }

  private all(ops: OperatorNode[], source: Source): Sql {
    const parts = ops.map((op) => this.operator(op, source));
    return parts.length === 1 ? parts[0] : sql`(${join(parts, " AND ")})`;
  }

  /** Mirrors `resolvePath`: runs of member steps go to one lax jsonpath, array indexes are added. */
  private source(root: Sql, path: readonly string[]): Source {
    let found = sql`SELECT ${root} AS v`;
    let run: string[] = [];
    const flush = () => {
      if (run.length === 0) return;
      const p = this.alias("p");
      found = sql`SELECT jsonb_path_query(${p}.v, ${jsonPath(run)}::jsonpath) AS v FROM (${found}) ${p}`;
      run = [];
    };
    for (const segment of path) {
      if (!isArrayIndex(segment)) {
        run.push(segment);
        continue;
      }
      flush();
      const p = this.alias("p");
      const q = this.alias("q");
      const index = Number(segment);
      found = sql`SELECT ${q}.v FROM (${found}) ${p}, LATERAL (SELECT jsonb_path_query(${p}.v, ${jsonPath([segment])}::jsonpath) AS v UNION ALL SELECT ${p}.v -> ${index}::int WHERE jsonb_typeof(${p}.v) = 'array' AND (${p}.v -> ${index}::int) IS NOT NULL) ${q}`;
    }
    flush();
    const source: Source = { found };
    if (path.length === 1) source.property = pathExpression(root, path);
    else if (path.length > 1 && !path.some(isArrayIndex)) source.values = valuesExpression(root, path);
    return source;
  }

  /** `EXISTS` a found value satisfying `test`. */
  private someFound(source: Source, test: (v: Sql) => Sql): Sql {
    const c = this.alias("c");
    return sql`EXISTS (SELECT 1 FROM (${source.found}) ${c} WHERE ${test(sql`${c}.v`)})`;
  }

  /** `EXISTS` a found value, or an element of a found array, satisfying `test`. */
  private someLeaf(source: Source, test: (v: Sql) => Sql): Sql {
    if (source.whole) return this.someFound(source, test);
    const c = this.alias("c");
    const l = this.alias("l");
    return sql`EXISTS (SELECT 1 FROM (${source.found}) ${c}, LATERAL (SELECT ${c}.v UNION ALL SELECT jsonb_array_elements(CASE WHEN jsonb_typeof(${c}.v) = 'array' THEN ${c}.v ELSE '[]'::jsonb END)) ${l}(v) WHERE ${test(sql`${l}.v`)})`;
  }

  private equals(source: Source, value: Json): Sql {
    const json = JSON.stringify(value);
    if (value === null) {
      if (source.property) {
        const p = source.property;
        return sql`(${p} IS NULL OR ${p} = 'null'::jsonb OR (${isArray(p)} AND ${p} @> '[null]'::jsonb))`;
      }
      const c = this.alias("c");
      return sql`(NOT EXISTS (SELECT 1 FROM (${source.found}) ${c}) OR ${this.someLeaf(source, (v) => sql`${v} = 'null'::jsonb`)})`;
    }
    const scalar = typeof value !== "object";
    // `@> '[v]'` as a literal: the planner proves an immutable condition from the index and drops
    // its per-row recheck; `jsonb_build_array(v)` is only stable, and kept the recheck.
    const element = JSON.stringify([value]);
    if (source.property) {
      const p = source.property;
      // Containment of a scalar in an array is exactly element equality; for objects and
      // arrays it is looser, so those get an exact check (the GIN index still narrows).
      const member = scalar
        ? sql`(${isArray(p)} AND ${p} @> ${element}::jsonb)`
        : sql`(${isArray(p)} AND ${p} @> ${element}::jsonb AND EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN ${isArray(p)} THEN ${p} ELSE '[]'::jsonb END) e(v) WHERE e.v = ${json}::jsonb))`;
      return sql`(${p} = ${json}::jsonb OR ${member})`;
    }
    if (source.values && scalar) return sql`${source.values} @> ${element}::jsonb`;
    return this.someLeaf(source, (v) => sql`${v} = ${json}::jsonb`);
  }

  private operator(op: OperatorNode, source: Source): Sql {
    switch (op.op) {
      case "eq":
        return this.equals(source, op.value);
      case "ne":
        return sql`(${this.equals(source, op.value)} IS NOT TRUE)`;
      case "in":
        return op.values.length === 0 ? FALSE : sql`(${join(op.values.map((v) => this.equals(source, v)), " OR ")})`;
      case "nin":
        return op.values.length === 0
          ? TRUE
          : sql`((${join(op.values.map((v) => this.equals(source, v)), " OR ")}) IS NOT TRUE)`;
      case "all":
        return op.values.length === 0 ? FALSE : sql`(${join(op.values.map((v) => this.equals(source, v)), " AND ")})`;
      case "gt":
      case "gte":
      case "lt":
      case "lte": {
        const value = op.value;
        if (value === null) return op.op === "gte" || op.op === "lte" ? this.equals(source, null) : FALSE;
        const cmp = raw({ gt: ">", gte: ">=", lt: "<", lte: "<=" }[op.op]);
        if (typeof value === "string") {
          return this.someLeaf(
            source,
            (v) => sql`(jsonb_typeof(${v}) = 'string' AND (${v} #>> '{}') COLLATE "C" ${cmp} ${value}::text)`,
          );
        }
        const type = typeof value === "number" ? "number" : "boolean";
        const json = JSON.stringify(value);
        return this.someLeaf(source, (v) => sql`(jsonb_typeof(${v}) = ${type} AND ${v} ${cmp} ${json}::jsonb)`);
      }
      case "exists": {
        const c = this.alias("c");
        const any = sql`EXISTS (SELECT 1 FROM (${source.found}) ${c})`;
        return op.value ? any : sql`(NOT ${any})`;
      }
      case "regex":
        return this.someLeaf(
          source,
          (v) => sql`(jsonb_typeof(${v}) = 'string' AND (${v} #>> '{}') COLLATE "C" ~ ${op.regex.pg}::text)`,
        );
      case "size":
        return this.someFound(
          source,
          (v) => sql`(CASE WHEN jsonb_typeof(${v}) = 'array' THEN jsonb_array_length(${v}) = ${op.value}::int END)`,
        );
      case "elemMatch":
      case "elemMatchOps": {
        const c = this.alias("c");
        const e = this.alias("e");
        const element = sql`${e}.v`;
        const test =
          op.op === "elemMatch"
            ? sql`(jsonb_typeof(${element}) = 'object' AND ${this.filter(op.filter, element)})`
            : this.all(op.ops, { found: sql`SELECT ${element} AS v`, whole: true });
        return sql`EXISTS (SELECT 1 FROM (${source.found}) ${c}, LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(${c}.v) = 'array' THEN ${c}.v ELSE '[]'::jsonb END) ${e}(v) WHERE ${test})`;
      }
      case "not":
        return sql`(${this.all(op.ops, source)} IS NOT TRUE)`;
    }
  }
}
