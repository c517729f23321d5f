/**
 * Pure helpers behind the dashboard's JSON editors (schema, document, filter) and the documents
 * table: parsing with a readable position, a light JSON Schema check, columns, merge-patch diffs.
 */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Parses `text` as a JSON object; the error names the line and column where parsing stopped. */
export function parseJsonObject(text: string, what = "The value"): Parsed<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: describeJsonError(text, error) };
  }
  if (!isObject(value)) return { ok: false, error: `${what} must be a JSON object ({ ... }).` };
  return { ok: true, value };
}

function describeJsonError(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (!text.trim()) return "Empty: type a JSON object.";
  // V8: "... in JSON at position 12 (line 2 column 3)" or "... at position 12".
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) return `Invalid JSON at line ${lineColumn[1]}, column ${lineColumn[2]}: ${firstClause(message)}`;
  const position = /position (\d+)/.exec(message);
  if (position) {
    const { line, column } = lineAndColumn(text, Number(position[1]));
    return `Invalid JSON at line ${line}, column ${column}: ${firstClause(message)}`;
  }
  return `Invalid JSON: ${firstClause(message)}`;
}

function firstClause(message: string): string {
  return message.replace(/\s*(?:in JSON )?at position \d+.*$/s, "").replace(/\s*\(line \d+ column \d+\)/, "");
}

export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

const SCHEMA_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null", "any", "file", "datetime", "embed"]);

/**
 * A quick check of a collection schema as the user types: an object schema whose properties are
 * schemas with known types. The server has the last word (its 422 names each property).
 */
export function checkSchema(schema: Record<string, unknown>): string[] {
  const errors: string[] = [];
  if (schema.type !== undefined && schema.type !== "object") errors.push('A collection schema describes documents: "type" must be "object".');
  if (schema.properties === undefined) return errors;
  if (!isObject(schema.properties)) {
    errors.push('"properties" must be an object of property schemas.');
    return errors;
  }
  checkProperties(schema.properties, "", errors);
  if (schema.required !== undefined && !(Array.isArray(schema.required) && schema.required.every((r) => typeof r === "string")))
    errors.push('"required" at the top must be an array of property names.');
  return errors;
}

function checkProperties(properties: Record<string, unknown>, prefix: string, errors: string[]): void {
  for (const [name, property] of Object.entries(properties)) {
    const path = prefix + name;
    if (!isObject(property)) {
      errors.push(`${path}: a property must be a schema object, e.g. {"type": "string"}.`);
      continue;
    }
    const types = Array.isArray(property.type) ? property.type : property.type === undefined ? [] : [property.type];
    for (const type of types)
      if (typeof type !== "string" || !SCHEMA_TYPES.has(type))
        errors.push(`${path}: unknown type ${JSON.stringify(type)} (use string, number, integer, boolean, object, array, null, file, datetime or embed).`);
    if (property.required !== undefined && typeof property.required !== "boolean" && !Array.isArray(property.required))
      errors.push(`${path}: "required" must be true or false.`);
    if (property.position !== undefined && typeof property.position !== "number") errors.push(`${path}: "position" must be a number.`);
    if (types.includes("embed") && (typeof property.collection !== "string" || !property.collection))
      errors.push(`${path}: an embed needs "collection" (and optionally "field").`);
    if (property.properties !== undefined) {
      if (isObject(property.properties)) checkProperties(property.properties, `${path}.`, errors);
      else errors.push(`${path}: "properties" must be an object.`);
    }
  }
}

/** The top-level properties of a schema, ordered by `position` (then by name), `_id` excluded. */
export function schemaColumns(schema: Record<string, unknown> | null | undefined): string[] {
  if (!schema || !isObject(schema.properties)) return [];
  const entries = Object.entries(schema.properties).filter(([name]) => name !== "_id");
  const position = (value: unknown) => (isObject(value) && typeof value.position === "number" ? value.position : Number.POSITIVE_INFINITY);
  return entries
    .map(([name, value], order) => ({ name, position: position(value), order }))
    .sort((a, b) => a.position - b.position || a.order - b.order)
    .map((entry) => entry.name);
}

/** Columns for a page of documents: `_id`, then the schema's properties or the documents' keys. */
export function documentColumns(schema: Record<string, unknown> | null | undefined, documents: Record<string, unknown>[], max = 12): string[] {
  const fromSchema = schemaColumns(schema);
  if (fromSchema.length) return ["_id", ...fromSchema];
  const keys: string[] = [];
  for (const document of documents) for (const key of Object.keys(document)) if (key !== "_id" && !keys.includes(key)) keys.push(key);
  return ["_id", ...keys.slice(0, max - 1)];
}

/** The properties of a schema that hold files (`type: "file"` or arrays of them), dotted. */
export function fileProperties(schema: Record<string, unknown> | null | undefined, prefix = ""): string[] {
  if (!schema || !isObject(schema.properties)) return [];
  const out: string[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!isObject(property)) continue;
    const items = isObject(property.items) ? property.items : undefined;
    if (property.type === "file" || (property.type === "array" && items?.type === "file")) out.push(prefix + name);
    else if (isObject(property.properties)) out.push(...fileProperties(property, `${prefix}${name}.`));
  }
  return out;
}

/** A short text for a table cell: strings as they are, file records by name, the rest as JSON. */
export function cellText(value: unknown, max = 80): string {
  let text: string;
  if (value === undefined) return "";
  if (typeof value === "string") text = value;
  else if (isFileRecordLike(value)) text = `📎 ${value.name}`;
  else if (Array.isArray(value) && value.length && value.every(isFileRecordLike)) text = value.map((f) => `📎 ${f.name}`).join(", ");
  else text = JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function isFileRecordLike(value: unknown): value is { _id: string; name: string; content_type: string; size: number } {
  return isObject(value) && typeof value._id === "string" && typeof value.md5 === "string" && typeof value.name === "string" && "content_type" in value;
}

/**
 * The JSON merge patch (RFC 7396) that turns `before` into `after`: removed keys become null,
 * changed objects are diffed recursively, everything else is replaced whole. Untouched keys (a
 * file property, say) stay out of the patch, so the server keeps them as they are.
 */
export function mergePatchDiff(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(before)) if (!(key in after)) patch[key] = null;
  for (const [key, value] of Object.entries(after)) {
    const old = before[key];
    if (isObject(old) && isObject(value) && !isFileRecordLike(value)) {
      const inner = mergePatchDiff(old, value);
      if (Object.keys(inner).length) patch[key] = inner;
    } else if (!deepEqual(old, value)) patch[key] = value;
  }
  return patch;
}

export type DocumentEdit =
  | { kind: "merge-patch"; patch: Record<string, unknown> }
  | { kind: "top-level"; patch: Record<string, unknown> }
  | { kind: "whole"; document: Record<string, unknown> };

/**
 * How an edit of `before` into `after` is sent, with as little as possible of what did not change
 * (whatever is sent overwrites what others wrote meanwhile):
 * - a JSON merge patch, unless a changed value holds a null to keep (there null removes a key:
 *   the patch is sent when applying it to `before` gives `after`);
 * - else the changed top-level keys whole, as a plain JSON `PATCH` (CONTRACT §5: it replaces the
 *   keys it names, nulls and all), unless a top-level key was removed;
 * - else the whole document (`PUT`), the one edit neither patch carries.
 * `undefined` when nothing changed. `_id` is never part of a patch.
 */
export function documentEdit(before: Record<string, unknown>, after: Record<string, unknown>): DocumentEdit | undefined {
  const diff = mergePatchDiff(before, after);
  delete diff._id;
  const changed = Object.keys(diff);
  if (!changed.length) return undefined;
  // Faithful unless a null meant as a value would be read as "remove".
  if (deepEqual(applyMergePatch(before, diff), after)) return { kind: "merge-patch", patch: diff };
  if (changed.every((key) => key in after)) return { kind: "top-level", patch: Object.fromEntries(changed.map((key) => [key, after[key]])) };
  return { kind: "whole", document: after };
}

/** RFC 7396's algorithm: what the server makes of `patch` over `target`. */
function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && deepEqual(a[key], b[key]));
  }
  return false;
}

/** A filter box's text: empty means no filter; otherwise a JSON object (the server checks operators). */
export function parseFilter(text: string): Parsed<Record<string, unknown> | undefined> {
  if (!text.trim()) return { ok: true, value: undefined };
  const parsed = parseJsonObject(text, "A filter");
  return parsed.ok ? { ok: true, value: parsed.value } : parsed;
}

export type PreviewKind = "image" | "audio" | "video" | "pdf" | "text" | undefined;

/** How the dashboard may show a file inline; active types (SVG, HTML, XML, scripts) never are. */
export function previewKind(contentType: string): PreviewKind {
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (/^image\/(png|jpeg|gif|webp|avif|bmp|x-icon|vnd\.microsoft\.icon)$/.test(type)) return "image";
  if (type.startsWith("audio/")) return "audio";
  if (type.startsWith("video/")) return "video";
  if (type === "application/pdf") return "pdf";
  if (type === "text/plain" || type === "text/csv" || type === "text/markdown" || type === "application/json") return "text";
  return undefined;
}
