import type { CollectionDefinition } from "./types";

/**
 * A starting document for a schema: each *required* property (CONTRACT §4: its key must be there)
 * with the empty value of its type, in `position` order (then the schema's key order). Optional
 * properties start unset, so a create stores only what the user entered: a `0` or a `now` put
 * there for them would be stored as if they had typed it (and fail a `minimum`). Left out as well:
 * numbers and datetimes (no empty value to invent: the form shows them blank and the server says
 * "is required" until they are filled), properties under a unique index (a `""` there makes the
 * second document from the template a 409), files (uploaded, not typed) and enums whose choices
 * lack the empty value.
 */
export function template(collection: Pick<CollectionDefinition, "schema" | "indexes">): string {
  const properties = collection.schema?.properties;
  const unique = new Set<string>();
  for (const index of collection.indexes ?? []) {
    if (!("unique" in index) || !index.unique) continue;
    if ("property" in index && typeof index.property === "string") unique.add(index.property);
    if ("properties" in index && Array.isArray(index.properties)) for (const property of index.properties) unique.add(String(property));
  }
  const out: Record<string, unknown> = {};
  if (!properties || typeof properties !== "object") return "{}";
  const entries = Object.entries(properties as Record<string, { type?: unknown; position?: unknown; enum?: unknown; required?: unknown }>);
  const position = (p: { position?: unknown } | undefined) => (typeof p?.position === "number" ? p.position : Number.POSITIVE_INFINITY);
  // A stable sort: equal positions (or none) keep the schema's order.
  entries.sort((a, b) => position(a[1]) - position(b[1]));
  const empty: Record<string, unknown> = { string: "", boolean: false, array: [], object: {} };
  for (const [name, property] of entries) {
    if (name === "_id" || property?.required !== true || unique.has(name)) continue;
    const type = Array.isArray(property?.type) ? property.type[0] : property?.type;
    // An enum starts "(not set)" unless its type's empty value is one of its choices: "" for a
    // genre of fixed names would be refused (422) before the user picked one.
    if (Array.isArray(property?.enum) && !(typeof type === "string" && property.enum.some((choice) => JSON.stringify(choice) === JSON.stringify(empty[type])))) continue;
    if (typeof type === "string" && type in empty) out[name] = empty[type];
  }
  return JSON.stringify(out, null, 2);
}
