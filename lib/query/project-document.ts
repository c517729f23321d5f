import { setOwn } from "./json-input";
import { isPlainObject } from "./json-values";
import type { Json } from "./types";

type Doc = { [key: string]: Json };

export interface Projection {
  /** `fields=a,b.c`: keep only these (and `_id`). */
  fields?: string | readonly string[] | null;
  /** `fields_exclude=c`: drop these, `_id` included when named. */
  fields_exclude?: string | readonly string[] | null;
}

function paths(list: string | readonly string[] | null | undefined): string[][] {
  const items = typeof list === "string" ? list.split(",") : (list ?? []);
  return items.map((item) => item.trim()).filter((item) => item !== "").map((item) => item.split("."));
}

/**
 * Applies `fields` / `fields_exclude` to a document read from storage. Dotted paths reach into
 * objects and, as in MongoDB projections, into every object element of an array on the way.
 */
export function projectDocument(doc: Doc, projection: Projection): Doc {
  const include = paths(projection.fields);
  const exclude = paths(projection.fields_exclude);
  let out: Doc = doc;
  if (include.length > 0) {
    out = {};
    if (Object.hasOwn(doc, "_id")) out._id = doc._id;
    for (const path of include) copyPath(doc, out, path);
  } else if (exclude.length > 0) {
    out = structuredClone(doc);
  }
  for (const path of exclude) removePath(out, path);
  return out;
}

function copyPath(from: Doc, to: Doc, path: string[]): void {
  const [head, ...rest] = path;
  if (!Object.hasOwn(from, head)) return;
  const value = from[head];
  if (rest.length === 0) {
    setOwn(to, head, structuredClone(value));
  } else if (isPlainObject(value)) {
    const existing = Object.hasOwn(to, head) ? to[head] : undefined;
    const target = isPlainObject(existing) ? existing : {};
    copyPath(value, target, rest);
    setOwn(to, head, target);
  } else if (Array.isArray(value)) {
    const existing = Object.hasOwn(to, head) && Array.isArray(to[head]) ? (to[head] as Json[]) : [];
    const elements = value.filter(isPlainObject).map((element, k) => {
      const target = isPlainObject(existing[k]) ? (existing[k] as Doc) : {};
      copyPath(element, target, rest);
      return target;
    });
    setOwn(to, head, elements);
  }
}

function removePath(doc: Doc, path: string[]): void {
  const [head, ...rest] = path;
  if (!Object.hasOwn(doc, head)) return;
  if (rest.length === 0) {
    delete doc[head];
    return;
  }
  const value = doc[head];
  if (isPlainObject(value)) removePath(value, rest);
  else if (Array.isArray(value)) for (const element of value) if (isPlainObject(element)) removePath(element, rest);
}
