/** A JSON value as stored in a document's JSONB. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A comparison operand: one type bracket each; arrays and objects are refused at parse time. */
export type Comparable = null | boolean | number | string;

/** A regex translated once into the same explicit language for both engines. */
export interface CompiledRegex {
  source: string;
  ignoreCase: boolean;
  /**
   * Runs in memory, on RE2 (linear time; case-insensitivity is already spelled out as classes).
   * Never a JavaScript RegExp: a request's pattern must not backtrack on the event loop.
   */
  js: { test(input: string): boolean };
  /** The same pattern in PostgreSQL ARE syntax, for `~` under `COLLATE "C"`. */
  pg: string;
}

export type OperatorNode =
  | { op: "eq" | "ne"; value: Json }
  | { op: "gt" | "gte" | "lt" | "lte"; value: Comparable }
  | { op: "in" | "nin" | "all"; values: Json[] }
  | { op: "exists"; value: boolean }
  | { op: "regex"; regex: CompiledRegex }
  | { op: "size"; value: number }
  | { op: "elemMatch"; filter: FilterNode }
  | { op: "elemMatchOps"; ops: OperatorNode[] }
  | { op: "not"; ops: OperatorNode[] };

export type FilterNode =
  | { kind: "and" | "or" | "nor"; children: FilterNode[] }
  /** All `ops` must hold for the values found at `path` (a dotted path split on `.`). */
  | { kind: "field"; path: string[]; ops: OperatorNode[] };
