/**
 * Bounds on a schema a request saves (a collection's schema, a hook's `conditions`). ajv compiles
 * it on the event loop into one function: ~0.1 ms a subschema and ~0.7 ms a `pattern`, growing
 * faster than linearly; a schema of 5,000 patterned properties held every project's requests for
 * 16 s on its save and again on its first write, and one of 3,000 properties overflowed the stack
 * when compiled. Past these a schema is refused (422) before anything compiles it.
 */
export const MAX_SCHEMA_OBJECTS = 1000;
export const MAX_SCHEMA_PATTERNS = 100;

/** Why `schema` is too large, or undefined. Data keywords (`enum`, `const`, `default`, `examples`) hold no schemas and do not count. */
export function schemaTooLarge(schema: unknown): string | undefined {
  let objects = 0;
  let patterns = 0;
  const pending: unknown[] = [schema];
  while (pending.length) {
    const node = pending.pop();
    if (!node || typeof node !== "object") continue;
    if (Array.isArray(node)) {
      pending.push(...node.slice(0, MAX_SCHEMA_OBJECTS + 1));
      continue;
    }
    if (++objects > MAX_SCHEMA_OBJECTS) return `has more than ${MAX_SCHEMA_OBJECTS} objects (subschemas and their maps): describe repeated shapes once, in definitions or patternProperties`;
    for (const [key, value] of Object.entries(node)) {
      if (key === "enum" || key === "const" || key === "default" || key === "examples") continue;
      if (key === "pattern" && typeof value === "string") patterns++;
      if (key === "patternProperties" && value && typeof value === "object" && !Array.isArray(value)) patterns += Object.keys(value).length;
      if (patterns > MAX_SCHEMA_PATTERNS) return `has more than ${MAX_SCHEMA_PATTERNS} patterns (pattern, patternProperties)`;
      pending.push(value);
    }
  }
  return undefined;
}
