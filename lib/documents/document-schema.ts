import Ajv, { type ErrorObject, type ValidateFunction } from "ajv-draft-04";
import { compileIsolated } from "./ajv-isolation";
import { schemaTooLarge } from "./schema-size";
import { linearRegExp } from "../query/linear-regexp";
import { validationError, type PropertyError } from "../errors";
import { addDraft4Formats, addLinearUniqueItems, loopsWithoutEnd, MULTIPLE_OF_PRECISION, realCalendarDate, withinFourDigitYears } from "./schema-formats";
import { ISO_8601 } from "../query/datetime-operands";

/**
 * Collection schemas: JSON Schema draft 4 (ajv-draft-04) with Deform's differences (CONTRACT §4).
 * A Deform schema is translated once into a standard one plus what ajv cannot do:
 * - `additionalProperties` is false unless the schema says otherwise (`_id` is always allowed);
 * - `"required": true` on a property joins its parent's `required` list;
 * - `immutable`, `position`, `processors` are not validation keywords (immutable is checked
 *   against the stored document by `checkImmutable`);
 * - `datetime`: an ISO 8601 string, stored normalized to UTC (`toISOString`);
 * - `embed` (`{collection, field}`): the stored value is the key (a string or number);
 * - `file`: an object here; that it is one of the document's own file records is checked by
 *   lib/files/document-file-records.ts, which alone knows what the document held.
 * Paths use `*` for "every element of an array".
 */
export interface CompiledSchema {
  validate(doc: unknown): PropertyError[];
  datetimes: string[][];
  immutables: string[][];
  embeds: { path: string[]; collection: string; field: string }[];
  files: string[][];
}

// `pattern`s come from requests: they run on RE2, never on the backtracking engine.
const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: true, multipleOfPrecision: MULTIPLE_OF_PRECISION, code: { regExp: linearRegExp } });
ajv.addFormat(
  "arca-datetime",
  (value: string) => ISO_8601.test(value) && !Number.isNaN(Date.parse(value)) && realCalendarDate(value) && withinFourDigitYears(value),
);
addDraft4Formats(ajv);
addLinearUniqueItems(ajv);

const DEFORM_KEYWORDS = ["immutable", "position", "processors"];

/**
 * `checkArca`: also refuse (422) what only Arca's own keywords get wrong, at schema save; stored
 * schemas are compiled without it, so a write never fails on what its schema was saved with.
 */
export function compileSchema(schema: Record<string, unknown>, options: { checkArca?: boolean } = {}): CompiledSchema {
  const definitions = schema.definitions && typeof schema.definitions === "object" && !Array.isArray(schema.definitions) ? (schema.definitions as Record<string, unknown>) : {};
  if (options.checkArca) {
    const tooLarge = schemaTooLarge(schema);
    if (tooLarge) throw validationError("Validation error", [{ property: "schema", message: tooLarge }]);
  }
  const info: Translation = { datetimes: [], immutables: [], embeds: [], files: [], definitions, resolving: new Set(), lost: [], malformed: [], budget: { left: MAX_EXPANDED_SUBSCHEMAS } };
  const standard = translate(schema, [], info, true) as Record<string, unknown>;
  if (options.checkArca) {
    // Every document has a string `_id` (CONTRACT §5): a schema typing it otherwise refused them all.
    const idSchema = schema.properties && typeof schema.properties === "object" ? (schema.properties as Record<string, unknown>)._id : undefined;
    const idType = idSchema && typeof idSchema === "object" ? (idSchema as Record<string, unknown>).type : undefined;
    if (idType !== undefined && !(Array.isArray(idType) ? idType : [idType]).includes("string"))
      throw validationError("Validation error", [{ property: "schema.properties._id.type", message: "_id is a string: its type must allow string" }]);
    const unnamed = embedsWithoutCollection(schema, []);
    if (unnamed.length)
      throw validationError("Validation error", unnamed.map((path) => ({ property: `schema.properties.${path.join(".properties.")}.collection`, message: "an embed names the collection it reads from" })));
    // Reads resolve embeds among user collections' documents only: one of `_files` or `_users`
    // would read back null for ever, which says "the document is gone".
    const system = info.embeds.filter((embed) => embed.collection.startsWith("_"));
    if (system.length)
      throw validationError("Validation error", system.map(({ path }) => ({ property: `schema.properties.${path.join(".properties.")}.collection`, message: "an embed reads from a user collection, not a system one (a file is a property of type file)" })));
    if (info.malformed.length) throw validationError("Validation error", [...new Map(info.malformed.map((e) => [e.property, e])).values()]);
    const lost = [...new Set(info.lost)];
    if (lost.length)
      throw validationError("Validation error", lost.map((property) => ({ property, message: "Arca's keywords (datetime, embed, file, immutable, processors) need a fixed place: not under patternProperties or in a recursive $ref; processors only on properties (not in definitions, allOf/anyOf/oneOf, not or additionalProperties)" })));
  }
  let validate: ValidateFunction;
  try {
    validate = compileIsolated(ajv, standard);
  } catch (error) {
    throw validationError("Validation error", [{ property: "schema", message: (error as Error).message }]);
  }
  // `$async: true` makes ajv answer a promise: truthy for every document (so none was refused),
  // rejecting for a failing one with nobody awaiting it, which stopped the process.
  if ((validate as { $async?: unknown }).$async) throw validationError("Validation error", [{ property: "schema", message: "$async schemas are not supported: documents are validated synchronously" }]);
  if (loopsWithoutEnd(validate)) throw validationError("Validation error", [{ property: "schema", message: "the schema refers to itself without end (a $ref loop that reads no deeper into the document)" }]);
  return {
    datetimes: info.datetimes,
    immutables: info.immutables,
    embeds: info.embeds,
    files: info.files,
    validate(doc) {
      let valid: boolean;
      try {
        valid = validate(doc) as boolean;
      } catch (error) {
        // A loop the save-time probe did not reach (`{"a": {"$ref": "#/properties/a"}}` with an `a`).
        if (error instanceof RangeError) return [{ property: null, message: "the schema refers to itself without end (a $ref loop that reads no deeper into the document)" }];
        throw error;
      }
      if (valid) return [];
      return (validate.errors ?? []).map(propertyError);
    },
  };
}

/** Paths of `embed` properties with no collection id (their value could never be read back as a document). */
function embedsWithoutCollection(node: unknown, path: string[]): string[][] {
  if (!node || typeof node !== "object" || Array.isArray(node)) return [];
  const source = node as Record<string, unknown>;
  const found: string[][] = source.type === "embed" && (typeof source.collection !== "string" || source.collection === "") ? [path] : [];
  if (source.properties && typeof source.properties === "object")
    for (const [name, child] of Object.entries(source.properties as Record<string, unknown>)) found.push(...embedsWithoutCollection(child, [...path, name]));
  return found;
}

/**
 * What a translation collects (the compiled schema's paths) and needs: the root's `definitions`,
 * which a local `$ref` is inlined from so that Arca's keywords apply through it as they do in
 * place (a reference back into one being inlined stays a `$ref`), and `lost`: where an Arca
 * keyword sits that has no fixed path to apply at (refused when the schema is saved).
 */
interface Translation extends Omit<CompiledSchema, "validate"> {
  definitions: Record<string, unknown>;
  resolving: Set<string>;
  lost: string[];
  /** Arca's keywords with values they never take, and a root that cannot describe a document. */
  malformed: PropertyError[];
  /** Subschemas the translation may still make (shared by `pathless` copies). */
  budget: { left: number };
}

/**
 * Subschemas one schema may expand to once its `$ref`s are inlined. Inlining multiplies: sixteen
 * definitions each naming the next twice expand to 2^16 copies (34 s on the server's thread, for
 * a schema of 2 KB), and ajv then compiles every copy.
 */
export const MAX_EXPANDED_SUBSCHEMAS = 5000;

/** The one `$ref` form Arca follows: into the schema's own `definitions`. */
export const DEFINITION_REF = "#/definitions/";

function translate(node: unknown, path: string[], info: Translation, root = false): unknown {
  // Draft 4: an `id` below the root starts a new base, so a `#/definitions/...` under it names
  // that subschema's definitions, not the root's: those refs are left for ajv to resolve.
  const ownBase = !root && node && typeof node === "object" && typeof (node as Record<string, unknown>).id === "string" && !((node as Record<string, unknown>).id as string).startsWith("#");
  if (!ownBase) return translateNode(node, path, info, root);
  const rootDefinitions = info.definitions;
  info.definitions = {};
  try {
    return translateNode(node, path, info, root);
  } finally {
    info.definitions = rootDefinitions;
  }
}

function translateNode(node: unknown, path: string[], info: Translation, root: boolean): unknown {
  if (!node || typeof node !== "object" || Array.isArray(node)) return node;
  if (--info.budget.left < 0)
    throw validationError("Validation error", [{ property: "schema", message: `its $refs expand to more than ${MAX_EXPANDED_SUBSCHEMAS} subschemas: refer to a definition from fewer places, or nest less` }]);
  const source = node as Record<string, unknown>;
  if (typeof source.$ref === "string" && source.$ref.startsWith(DEFINITION_REF)) {
    const name = decodePointer(source.$ref.slice(DEFINITION_REF.length));
    if (Object.hasOwn(info.definitions, name)) {
      if (info.resolving.has(name)) {
        if (hasArcaKeywords(info.definitions[name])) info.lost.push(`schema.definitions.${name}`);
        return source;
      }
      info.resolving.add(name);
      try {
        // Draft 4: a `$ref` object's other keys are ignored, so the definition stands in for it.
        return translate(info.definitions[name], path, info);
      } finally {
        info.resolving.delete(name);
      }
    }
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (DEFORM_KEYWORDS.includes(key)) continue;
    if (key === "required" && typeof value === "boolean") continue;
    out[key] = value;
  }
  if (source.immutable === true && path.length) info.immutables.push(path);
  const at = (keyword: string) => (path.length ? `schema.properties.${path.join(".properties.")}.${keyword}` : `schema.${keyword}`);
  if ("immutable" in source && typeof source.immutable !== "boolean") info.malformed.push({ property: at("immutable"), message: "immutable is true or false" });
  if ("position" in source && !Number.isFinite(source.position)) info.malformed.push({ property: at("position"), message: "position is a number" });
  if (root && source.type !== undefined && !(Array.isArray(source.type) ? source.type : [source.type]).includes("object"))
    info.malformed.push({ property: "schema.type", message: "a collection's documents are objects: the schema's type must allow object" });
  switch (source.type) {
    case "datetime":
      out.type = "string";
      out.format = "arca-datetime";
      info.datetimes.push(path);
      break;
    case "embed":
      out.type = ["string", "number"];
      delete out.collection;
      delete out.field;
      if (typeof source.collection === "string")
        info.embeds.push({ path, collection: source.collection, field: typeof source.field === "string" ? source.field : "_id" });
      break;
    case "file":
      out.type = "object";
      info.files.push(path);
      break;
  }
  // A list of types may name Arca's own too (`["datetime", "null"]`, as `_users.date_joined` shows).
  if (Array.isArray(source.type) && source.type.some((t) => t === "datetime" || t === "embed" || t === "file")) {
    const types = new Set<unknown>();
    for (const type of source.type) {
      if (type === "datetime") {
        types.add("string");
        out.format = "arca-datetime";
        if (!info.datetimes.includes(path)) info.datetimes.push(path);
      } else if (type === "embed") {
        types.add("string").add("number");
        delete out.collection;
        delete out.field;
        if (typeof source.collection === "string")
          info.embeds.push({ path, collection: source.collection, field: typeof source.field === "string" ? source.field : "_id" });
      } else if (type === "file") {
        types.add("object");
        info.files.push(path);
      } else types.add(type);
    }
    out.type = [...types];
  }
  if (source.properties && typeof source.properties === "object") {
    const properties: Record<string, unknown> = {};
    const required = new Set(Array.isArray(source.required) ? (source.required as string[]) : []);
    for (const [name, child] of Object.entries(source.properties as Record<string, unknown>)) {
      properties[name] = translate(child, [...path, name], info);
      if (child && typeof child === "object" && (child as Record<string, unknown>).required === true) required.add(name);
    }
    if (root && !("_id" in properties)) properties._id = { type: "string" };
    out.properties = properties;
    if (required.size) out.required = [...required];
    else delete out.required;
    if (!("additionalProperties" in source)) out.additionalProperties = false;
  }
  if (source.items) {
    out.items = Array.isArray(source.items)
      ? source.items.map((item) => translate(item, [...path, "*"], info))
      : translate(source.items, [...path, "*"], info);
  }
  if (source.additionalProperties && typeof source.additionalProperties === "object")
    out.additionalProperties = translate(source.additionalProperties, [...path, "*"], info);
  for (const key of ["allOf", "anyOf", "oneOf"])
    if (Array.isArray(source[key])) out[key] = (source[key] as unknown[]).map((s) => translate(s, path, info));
  if (source.not) out.not = translate(source.not, path, info);
  // Processors run on properties (lib/processors walks `properties` and `items`): in a branch of
  // a combinator or under additionalProperties they would never run, so they are refused.
  for (const key of ["allOf", "anyOf", "oneOf"])
    if (Array.isArray(source[key]))
      (source[key] as unknown[]).forEach((branch, i) => hasProcessors(branch) && info.lost.push(`schema.${[...path, key, String(i)].join(".")}`));
  if (hasProcessors(source.not)) info.lost.push(`schema.${[...path, "not"].join(".")}`);
  if (hasProcessors(source.additionalProperties)) info.lost.push(`schema.${[...path, "additionalProperties"].join(".")}`);
  // Kept for references that stay `$ref` (recursive ones); what they hold has no fixed path.
  if (root && source.definitions && typeof source.definitions === "object" && !Array.isArray(source.definitions)) {
    const defined: Record<string, unknown> = {};
    for (const [name, definition] of Object.entries(source.definitions as Record<string, unknown>)) {
      if (hasProcessors(definition)) info.lost.push(`schema.definitions.${name}`);
      defined[name] = translate(definition, [], pathless(info));
    }
    out.definitions = defined;
  }
  if (source.patternProperties && typeof source.patternProperties === "object" && !Array.isArray(source.patternProperties)) {
    const patterned: Record<string, unknown> = {};
    for (const [pattern, child] of Object.entries(source.patternProperties as Record<string, unknown>)) {
      if (hasArcaKeywords(child)) info.lost.push(`schema.${[...path, "patternProperties", pattern].join(".")}`);
      patterned[pattern] = translate(child, [], pathless(info));
    }
    out.patternProperties = patterned;
  }
  // `_id` is always allowed at the top, with or without `properties`.
  if (root && out.additionalProperties === false && !out.properties) out.properties = { _id: { type: "string" } };
  return out;
}

/** A translation whose paths go nowhere: for subschemas no fixed document path leads to. */
function pathless(info: Translation): Translation {
  return { ...info, datetimes: [], immutables: [], embeds: [], files: [] };
}

/** A JSON Pointer token (`#/definitions/<token>`) as the name it spells. */
export function decodePointer(token: string): string {
  try {
    return decodeURIComponent(token).replace(/~1/g, "/").replace(/~0/g, "~");
  } catch {
    return token;
  }
}

const ARCA_TYPES = new Set(["datetime", "embed", "file"]);

/** Whether a subschema uses a keyword only Arca acts on at a document path. */
function hasArcaKeywords(node: unknown): boolean {
  return anySubschema(node, (schema) => {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    return types.some((t) => typeof t === "string" && ARCA_TYPES.has(t)) || schema.immutable === true || schema.processors !== undefined;
  });
}

function hasProcessors(node: unknown): boolean {
  return anySubschema(node, (schema) => schema.processors !== undefined);
}

/** Whether `test` holds of `node` or of any schema inside it (`enum`, `const` and `default` hold data, not schemas). */
function anySubschema(node: unknown, test: (schema: Record<string, unknown>) => boolean): boolean {
  if (!node || typeof node !== "object") return false;
  if (Array.isArray(node)) return node.some((item) => anySubschema(item, test));
  const schema = node as Record<string, unknown>;
  return test(schema) || Object.entries(schema).some(([key, value]) => key !== "enum" && key !== "const" && key !== "default" && anySubschema(value, test));
}

function propertyError(error: ErrorObject): PropertyError {
  const base = error.instancePath.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  const params = error.params as Record<string, string>;
  if (error.keyword === "required") return { property: [...base, params.missingProperty].join("."), message: "is required" };
  if (error.keyword === "additionalProperties")
    return { property: [...base, params.additionalProperty].join("."), message: "is not allowed by the schema" };
  if (error.keyword === "format" && params.format === "arca-datetime")
    return { property: base.join(".") || null, message: "must be an ISO 8601 date and time" };
  return { property: base.join(".") || null, message: error.message ?? "is invalid" };
}

const cache = new Map<string, { text: string; compiled: CompiledSchema }>();

/** The compiled validator of a collection's schema, cached per (project, collection, schema). */
export function schemaFor(projectId: string, collectionId: string, schema: Record<string, unknown>): CompiledSchema {
  const key = `${projectId}\u0000${collectionId}`;
  const text = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit && hit.text === text) return hit.compiled;
  const compiled = compileSchema(schema);
  cache.set(key, { text, compiled });
  if (cache.size > 10_000) cache.delete(cache.keys().next().value!);
  return compiled;
}

/** Rewrites `datetime` values to UTC ISO strings in place. */
export function normalizeDatetimes(doc: Record<string, unknown>, compiled: CompiledSchema): void {
  for (const path of compiled.datetimes)
    visit(doc, path, (value, set) => {
      if (typeof value === "string" && !Number.isNaN(Date.parse(value))) set(new Date(value).toISOString());
    });
}

/** Errors for every `immutable` property that had a value and changed. */
export function checkImmutable(before: Record<string, unknown>, after: Record<string, unknown>, compiled: CompiledSchema): PropertyError[] {
  const errors: PropertyError[] = [];
  for (const schemaPath of compiled.immutables) {
    // Inside arrays (`*`), each element the document had is held to it, by its index.
    for (const path of concretePaths(before, schemaPath)) {
      const old = valueAt(before, path);
      if (old === undefined) continue;
      if (JSON.stringify(old) !== JSON.stringify(valueAt(after, path)))
        errors.push({ property: path.join("."), message: "is immutable and cannot be changed" });
    }
  }
  return errors;
}

/** A schema path with each `*` replaced by every index `doc` has there. */
function concretePaths(doc: unknown, schemaPath: string[]): string[][] {
  const star = schemaPath.indexOf("*");
  if (star < 0) return [schemaPath];
  const array = valueAt(doc, schemaPath.slice(0, star));
  if (!Array.isArray(array)) return [];
  return array.flatMap((_, i) => concretePaths(doc, [...schemaPath.slice(0, star), String(i), ...schemaPath.slice(star + 1)]));
}

export function valueAt(doc: unknown, path: string[]): unknown {
  let value = doc;
  for (const segment of path) value = value && typeof value === "object" && Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
  return value;
}

/** Calls `fn` for every value `path` reaches (`*` walks array elements), with a setter. */
export function visit(node: unknown, path: string[], fn: (value: unknown, set: (v: unknown) => void) => void): void {
  if (!node || typeof node !== "object") return;
  const [head, ...rest] = path;
  if (head === "*") {
    if (!Array.isArray(node)) return;
    node.forEach((item, i) => (rest.length ? visit(item, rest, fn) : fn(item, (v) => (node[i] = v))));
    return;
  }
  const record = node as Record<string, unknown>;
  if (!Object.hasOwn(record, head)) return;
  if (rest.length) visit(record[head], rest, fn);
  else fn(record[head], (v) => (record[head] = v));
}
