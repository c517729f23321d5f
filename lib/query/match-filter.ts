import { compareCodePoints, deepEqual, isPlainObject } from "./json-values";
import { resolvePath } from "./resolve-path";
import type { Comparable, FilterNode, Json, OperatorNode } from "./types";

/**
 * Evaluates a parsed filter against one document in memory. This is the reference semantics:
 * `compileFilter` must select exactly the documents this accepts (a property test checks it).
 */
export function matchFilter(node: FilterNode, doc: Json): boolean {
  switch (node.kind) {
    case "and":
      return node.children.every((child) => matchFilter(child, doc));
    case "or":
      return node.children.some((child) => matchFilter(child, doc));
    case "nor":
      return !node.children.some((child) => matchFilter(child, doc));
    case "field": {
      const found = resolvePath(doc, node.path);
      return node.ops.every((op) => matchOperator(op, found));
    }
  }
}

/**
 * The values an operator looks at: each value found, and the elements of those that are arrays.
 * `whole`: the value alone, as `$elemMatch` tests each element (an element that is itself an
 * array is not opened: `{a: {$elemMatch: {$gt: 4}}}` matches `{a: [5]}`, not `{a: [[5]]}`).
 */
function leaves(found: Json[], whole: boolean): Json[] {
  return whole ? found : found.flatMap((value) => (Array.isArray(value) ? [value, ...value] : [value]));
}

function equals(found: Json[], value: Json, whole: boolean): boolean {
  // `null` also stands for "missing", as in MongoDB.
  if (value === null && found.length === 0) return true;
  return leaves(found, whole).some((leaf) => deepEqual(leaf, value));
}

function compare(leaf: Json, value: Exclude<Comparable, null>): number | undefined {
  if (typeof leaf !== typeof value || leaf === null) return undefined;
  if (typeof leaf === "string") return compareCodePoints(leaf, value as string);
  return (leaf as number) < (value as number) ? -1 : (leaf as number) > (value as number) ? 1 : 0;
}

function matchOperator(op: OperatorNode, found: Json[], whole = false): boolean {
  switch (op.op) {
    case "eq":
      return equals(found, op.value, whole);
    case "ne":
      return !equals(found, op.value, whole);
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const value = op.value;
      if (value === null) return op.op === "gte" || op.op === "lte" ? equals(found, null, whole) : false;
      return leaves(found, whole).some((leaf) => {
        const order = compare(leaf, value);
        if (order === undefined) return false;
        return op.op === "gt" ? order > 0 : op.op === "gte" ? order >= 0 : op.op === "lt" ? order < 0 : order <= 0;
      });
    }
    case "in":
      return op.values.some((value) => equals(found, value, whole));
    case "nin":
      return !op.values.some((value) => equals(found, value, whole));
    case "all":
      return op.values.length > 0 && op.values.every((value) => equals(found, value, whole));
    case "exists":
      return found.length > 0 === op.value;
    case "regex":
      return leaves(found, whole).some((leaf) => typeof leaf === "string" && op.regex.js.test(leaf));
    case "size":
      return found.some((value) => Array.isArray(value) && value.length === op.value);
    case "elemMatch":
      return found.some(
        (value) => Array.isArray(value) && value.some((el) => isPlainObject(el) && matchFilter(op.filter, el)),
      );
    case "elemMatchOps":
      return found.some(
        (value) => Array.isArray(value) && value.some((el) => op.ops.every((inner) => matchOperator(inner, [el], true))),
      );
    case "not":
      return !op.ops.every((inner) => matchOperator(inner, found, whole));
  }
}
