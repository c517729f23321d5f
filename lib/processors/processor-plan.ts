import { decodePointer, DEFINITION_REF } from "../documents/document-schema";
import { isPlainObject } from "../query/json-values";
import { validationError, type PropertyError } from "../errors";
import { processorKinds } from "./processor-registry";
import type { ArgumentSpec, ProcessorSpec } from "./processor-types";

/**
 * A schema's processors as the write path runs them (CONTRACT §7): every property carrying
 * processors, with the property paths its processors read, in dependency order. Built once per
 * schema object (the collection state caches the schema, so writes reuse the plan), and when a
 * schema is saved, where every mistake is a 422 naming the property.
 */
export interface PropertyPlan {
  path: string[];
  /** The dotted path, as errors and `process_only` name it. */
  key: string;
  processors: ProcessorSpec[];
  /** Property paths its processors read (besides its own value). */
  inputs: string[][];
}

export type ProcessorPlan = PropertyPlan[];

export const RECURSION_MESSAGE = "Recursion detected in processors";

const plans = new WeakMap<object, ProcessorPlan>();

/** The plan of a stored schema (cached); an empty list when it has no processors. */
export function processorPlan(schema: Record<string, unknown> | null): ProcessorPlan {
  if (!schema) return [];
  let plan = plans.get(schema);
  if (!plan) {
    plan = buildProcessorPlan(schema);
    plans.set(schema, plan);
  }
  return plan;
}

/**
 * Builds and checks the plan: 422 for an unknown kind, a bad or missing argument, an array
 * property, a cycle; when `saving`, also for an input the schema closes off (a schema saved
 * before that check keeps working).
 */
export function buildProcessorPlan(schema: Record<string, unknown>, options: { saving?: boolean } = {}): ProcessorPlan {
  const found: PropertyPlan[] = [];
  const errors: PropertyError[] = [];
  const definitions = isPlainObject(schema.definitions) ? schema.definitions : {};
  collect(schema, [], found, errors, false, definitions);
  if (options.saving)
    for (const plan of found)
      for (const input of plan.inputs)
        if (!schemaAllows(schema, input)) errors.push({ property: plan.key, message: `reads ${input.join(".")}, which the schema does not allow in a document` });
  if (errors.length) throw validationError("Validation error", errors);
  return dependencyOrder(found);
}

function collect(node: unknown, path: string[], found: PropertyPlan[], errors: PropertyError[], insideArray: boolean, definitions: Record<string, unknown>): void {
  if (!node || typeof node !== "object" || Array.isArray(node)) return;
  const source = node as Record<string, unknown>;
  const key = path.join(".");
  if (path.length && source.processors !== undefined) {
    if (insideArray || mayBeArray(source, definitions, 0)) errors.push({ property: key, message: "processors cannot run on an array property" });
    // The id is the client's or generated, checked and fixed before processors run (CONTRACT §5).
    else if (key === "_id") errors.push({ property: key, message: "processors cannot run on _id" });
    else {
      const processors = parseProcessors(source.processors, key, errors);
      const mismatch = processors && outputMismatch(processors, source.type);
      if (mismatch) errors.push({ property: key, message: mismatch });
      else if (processors) found.push({ path, key, processors, inputs: inputsOf(processors) });
    }
  }
  if (source.properties && typeof source.properties === "object" && !Array.isArray(source.properties))
    for (const [name, child] of Object.entries(source.properties as Record<string, unknown>)) collect(child, [...path, name], found, errors, insideArray, definitions);
  // Items of an array: any processor down there would run on an array element.
  const items = Array.isArray(source.items) ? source.items : source.items ? [source.items] : [];
  for (const item of items) collect(item, path, found, errors, true, definitions);
}

/** What each declared `type` takes of the processors' outputs (`datetime` and `embed` are text; an embed's key may be a number). */
const TAKES: Record<string, string[]> = {
  string: ["string"],
  datetime: ["string"],
  embed: ["string", "number"],
  number: ["number"],
  integer: ["number"],
  object: ["object"],
  file: ["file"],
  boolean: [],
  null: [],
};

/**
 * The last processor writes the property: a kind whose value the declared `type` never takes
 * (`md5` on a `file`, `resize` on a `string`) would fail every write with 422, so the schema is
 * refused when saved. A property without a plain `type` (or with one Arca does not know) is not
 * judged here.
 */
function outputMismatch(processors: ProcessorSpec[], type: unknown): string | undefined {
  const last = processors[processors.length - 1];
  const kind = last && processorKinds[last.name];
  const declared = typeof type === "string" ? [type] : Array.isArray(type) && type.every((t) => typeof t === "string") ? (type as string[]) : undefined;
  if (!kind || !declared || declared.some((t) => !Object.hasOwn(TAKES, t))) return undefined;
  const output = kind.outputOf?.(last) ?? kind.output;
  if (declared.some((t) => TAKES[t].some((taken) => output.includes(taken as never)))) return undefined;
  const what = output.map((o) => (o === "object" ? "an object" : o === "file" ? "a file" : `a ${o}`)).join(" or ");
  return `${last.name} writes ${what}, which a property of type ${JSON.stringify(type)} never holds`;
}

/**
 * Whether a property's value may be an array: its `type`, through a `$ref` to the schema's
 * definitions (inlined where the schema is compiled, so the value is validated as that), and
 * through `allOf`/`anyOf`/`oneOf`. A processor there would replace the array with its output.
 */
function mayBeArray(node: unknown, definitions: Record<string, unknown>, depth: number): boolean {
  if (!isPlainObject(node) || depth > MAX_REF_DEPTH) return false;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes("array")) return true;
  if (typeof node.$ref === "string" && node.$ref.startsWith(DEFINITION_REF)) {
    const name = decodePointer(node.$ref.slice(DEFINITION_REF.length));
    if (Object.hasOwn(definitions, name) && mayBeArray(definitions[name], definitions, depth + 1)) return true;
  }
  return ["allOf", "anyOf", "oneOf"].some((keyword) => Array.isArray(node[keyword]) && node[keyword].some((branch: unknown) => mayBeArray(branch, definitions, depth + 1)));
}

/**
 * Whether a document may hold `path` under `schema`: false only when some schema on the way
 * lists its properties and is closed (`additionalProperties: false`, or absent, which Arca reads
 * as false when `properties` are listed; no pattern, no combinator) without naming the next key,
 * or declares a type that holds no keys (`string`, `number`, ...: not object, file or embed). A
 * processor reading such a path never gets input. Anything the walk cannot follow plainly (a
 * `$ref`, a combinator, a file's sub-field) is allowed.
 */
function schemaAllows(schema: Record<string, unknown>, path: string[]): boolean {
  let node: unknown = schema;
  for (const [depth, key] of path.entries()) {
    if (!isPlainObject(node)) return true;
    if (depth === 0 && key === "_id") return true;
    const types = typeof node.type === "string" ? [node.type] : Array.isArray(node.type) ? node.type : undefined;
    if (types && !types.some((t) => t === "object" || t === "file" || t === "embed")) return false;
    const properties = isPlainObject(node.properties) ? node.properties : undefined;
    if (properties && Object.hasOwn(properties, key)) {
      node = properties[key];
      continue;
    }
    const closedByDefault = !("additionalProperties" in node) && properties !== undefined;
    const closed = (node.additionalProperties === false || closedByDefault) && node.patternProperties === undefined && !["$ref", "allOf", "anyOf", "oneOf", "not"].some((k) => k in (node as object));
    return !closed;
  }
  return true;
}

/** A reference cycle (`a` -> `b` -> `a`) ends here. */
const MAX_REF_DEPTH = 32;

function parseProcessors(value: unknown, key: string, errors: PropertyError[]): ProcessorSpec[] | undefined {
  if (!Array.isArray(value)) {
    errors.push({ property: key, message: "processors must be an array" });
    return undefined;
  }
  const specs: ProcessorSpec[] = [];
  for (const [index, entry] of value.entries()) {
    const where = `processor ${index + 1}`;
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) {
      errors.push({ property: key, message: `${where} must be an object` });
      continue;
    }
    const { name, in: args, ...extra } = entry as Record<string, unknown>;
    const kind = typeof name === "string" && Object.hasOwn(processorKinds, name) ? processorKinds[name] : undefined;
    if (!kind) {
      errors.push({ property: key, message: name === undefined ? `${where} needs a "name" (its kind)` : `unknown processor kind ${JSON.stringify(name)}` });
      continue;
    }
    const unknownKeys = Object.keys(extra);
    if (unknownKeys.length) {
      errors.push({ property: key, message: `${name}: unknown key ${JSON.stringify(unknownKeys[0])}` });
      continue;
    }
    if (args !== undefined && (!args || typeof args !== "object" || Array.isArray(args))) {
      errors.push({ property: key, message: `${name}: "in" must be an object` });
      continue;
    }
    // CONTRACT §7 calls a processor's input its `source`: that name stands for the kind's own
    // source argument (`text` for md5, `image` for resize, ...), as the kind's name does.
    let given = (args ?? {}) as Record<string, unknown>;
    if (Object.hasOwn(given, "source") && kind.source && !kind.args.includes("source")) {
      if (Object.hasOwn(given, kind.source)) {
        errors.push({ property: key, message: `${name}: "source" and "${kind.source}" name the same argument` });
        continue;
      }
      const { source, ...rest } = given;
      given = { ...rest, [kind.source]: source };
    }
    const parsed: Record<string, ArgumentSpec> = {};
    let bad = false;
    for (const [arg, spec] of Object.entries(given)) {
      if (!kind.args.includes(arg)) {
        errors.push({ property: key, message: `${name}: unknown argument "${arg}"` });
        bad = true;
        continue;
      }
      const argument = parseArgument(spec, arg === "context");
      if (typeof argument === "string") {
        errors.push({ property: key, message: `${name}: argument "${arg}" ${argument}` });
        bad = true;
      } else parsed[arg] = argument;
    }
    for (const required of kind.required ?? [])
      if (!(required in parsed)) {
        errors.push({ property: key, message: `${name}: argument "${required}" is required` });
        bad = true;
      }
    if (bad) continue;
    const spec: ProcessorSpec = { name: name as string, in: parsed };
    const problem = literalProblem(spec) ?? kind.check?.(spec);
    if (problem) errors.push({ property: key, message: `${name}: ${problem}` });
    else specs.push(spec);
  }
  return specs;
}

/** Arguments that name a file of the document: a literal can never be one. */
const FILE_ARGUMENTS = new Set(["original_image", "watermark_image"]);
/** Arguments every kind reads as a string (md5's `text` takes any JSON value, so md5 is exempt). */
const STRING_ARGUMENTS = new Set(["text", "html", "template_string", "url", "base_url", "language", "from", "to", "lang", "api_key", "subscription_key", "language_token", "format", "speaker", "emotion", "timezone", "model", "syntax", "random_type", "gravity"]);

/**
 * Literals of the wrong kind refused when the schema is saved: otherwise the schema is stored
 * and every later write fails on them (422 each time).
 */
function literalProblem(spec: ProcessorSpec): string | undefined {
  for (const [arg, given] of Object.entries(spec.in)) {
    if (!("value" in given)) continue;
    if (FILE_ARGUMENTS.has(arg)) return `argument "${arg}" must name a file property ({"property": ...}), not a literal value`;
    if (spec.name !== "md5" && STRING_ARGUMENTS.has(arg) && typeof given.value !== "string") return `argument "${arg}" must be a string`;
    if ((arg === "url" || arg === "base_url") && !/^https?:\/\/[^\s/]+/i.test(given.value as string)) return `argument "${arg}" must be an http(s) URL`;
  }
  return undefined;
}

/** `{"property": "a.b"}`, `{"value": <literal>}`, or (nested) an object of such arguments; a string is the problem. */
function parseArgument(spec: unknown, nested: boolean): ArgumentSpec | string {
  if (!spec || typeof spec !== "object" || Array.isArray(spec)) return 'must be {"property": <path>} or {"value": <literal>}';
  const keys = Object.keys(spec);
  const record = spec as Record<string, unknown>;
  if (keys.length === 1 && keys[0] === "value") return { value: record.value };
  if (keys.length === 1 && keys[0] === "property") {
    const path = typeof record.property === "string" ? record.property.split(".") : [];
    if (!path.length || path.some((s) => s === "" || s === "__proto__" || s === "constructor" || s === "prototype")) return "names no valid property path";
    return { property: path };
  }
  if (!nested) return 'must be {"property": <path>} or {"value": <literal>}';
  const object: Record<string, ArgumentSpec> = {};
  for (const [name, child] of Object.entries(record)) {
    const parsed = parseArgument(child, true);
    if (typeof parsed === "string") return `${name} ${parsed}`;
    object[name] = parsed;
  }
  return { object };
}

function inputsOf(processors: ProcessorSpec[]): string[][] {
  const out: string[][] = [];
  const walk = (spec: ArgumentSpec) => {
    if ("property" in spec) out.push(spec.property);
    else if ("object" in spec) Object.values(spec.object).forEach(walk);
  };
  for (const processor of processors) Object.values(processor.in).forEach(walk);
  return out;
}

/** True when one path is the other or lies inside it (reading `a` depends on `a.b`'s processors and vice versa). */
export function overlaps(a: string[], b: string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Topological order (Kahn, schema order among equals); a cycle through two or more properties is a 422. */
function dependencyOrder(found: PropertyPlan[]): ProcessorPlan {
  const dependsOn = found.map((plan) =>
    found.map((other, j) => (other !== plan && plan.inputs.some((input) => overlaps(input, other.path)) ? j : -1)).filter((j) => j >= 0),
  );
  const done = new Set<number>();
  const order: PropertyPlan[] = [];
  while (order.length < found.length) {
    const next = found.findIndex((_, i) => !done.has(i) && dependsOn[i].every((j) => done.has(j)));
    if (next === -1) {
      const stuck = found.filter((_, i) => !done.has(i)).map((p) => ({ property: p.key, message: "its processors depend on each other in a cycle" }));
      throw validationError(RECURSION_MESSAGE, stuck);
    }
    done.add(next);
    order.push(found[next]);
  }
  return order;
}
