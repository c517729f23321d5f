/**
 * `fields=a,b.c` keeps only those paths (and `_id`, unless excluded); `fields_exclude=c` drops
 * paths. Dotted paths reach into nested objects; arrays are projected element by element.
 */
export function projectDocument(
  record: Record<string, unknown>,
  options: { fields?: string[]; fields_exclude?: string[] },
): Record<string, unknown> {
  let result = record;
  if (options.fields?.length) {
    const paths = options.fields.map((f) => f.split("."));
    if (!options.fields_exclude?.includes("_id") && !options.fields.includes("_id")) paths.push(["_id"]);
    result = pick(record, paths) as Record<string, unknown>;
  }
  if (options.fields_exclude?.length) {
    result = structuredClone(result);
    for (const field of options.fields_exclude) omit(result, field.split("."));
  }
  return result;
}

function pick(value: unknown, paths: string[][]): unknown {
  if (Array.isArray(value)) return value.map((item) => pick(item, paths)).filter((item) => item !== undefined);
  if (!value || typeof value !== "object") return undefined;
  const out: Record<string, unknown> = {};
  const source = value as Record<string, unknown>;
  for (const [key, child] of Object.entries(source)) {
    const matching = paths.filter((p) => p[0] === key);
    if (!matching.length) continue;
    if (matching.some((p) => p.length === 1)) out[key] = child;
    else {
      const picked = pick(child, matching.map((p) => p.slice(1)));
      if (picked !== undefined) out[key] = picked;
    }
  }
  return out;
}

function omit(value: unknown, path: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) omit(item, path);
    return;
  }
  if (!value || typeof value !== "object") return;
  const source = value as Record<string, unknown>;
  if (path.length === 1) delete source[path[0]];
  else omit(source[path[0]], path.slice(1));
}
