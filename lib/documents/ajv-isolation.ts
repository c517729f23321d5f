import type Ajv from "ajv-draft-04";
import type { AnySchema, ValidateFunction } from "ajv-draft-04";

/** What ajv keeps per instance across compiles (public fields, and the private schema cache). */
interface AjvRegistry {
  refs: Record<string, unknown>;
  schemas: Record<string, unknown>;
  _cache: Map<unknown, unknown>;
}

/**
 * Compiles `schema` on a shared ajv instance as if it were the only one it ever saw. Left alone,
 * ajv registers every schema's `id`s (root and nested) in the instance and keeps every compiled
 * schema object in its cache for good: one project's schema then became resolvable by another
 * project's `$ref`, a second compile of the same `id` failed ("already exists"), a `$ref` could
 * depend on what happened to be compiled since the process started, and the cache grew with every
 * save. Compiling is synchronous, so what a compile added is exactly what is new afterwards.
 */
export function compileIsolated(ajv: Ajv, schema: AnySchema): ValidateFunction {
  const registry = ajv as unknown as AjvRegistry;
  const refs = new Set(Object.keys(registry.refs));
  const schemas = new Set(Object.keys(registry.schemas));
  try {
    return ajv.compile(schema);
  } finally {
    for (const key of Object.keys(registry.refs)) if (!refs.has(key)) delete registry.refs[key];
    for (const key of Object.keys(registry.schemas)) if (!schemas.has(key)) delete registry.schemas[key];
    registry._cache.delete(schema);
  }
}
