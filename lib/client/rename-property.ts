/**
 * Renaming a top-level property in the schema designer (docs/dashboard.md): the schema's own
 * references to it go along, so a rename never leaves a processor reading, or a draft-4
 * `required` list naming, a property that no longer exists. Indexes are renamed by
 * `renamedPath`, applied by the form that holds them (a unique index left on the old name
 * silently stopped guarding the renamed property).
 */
type Json = Record<string, unknown>;

/** `path` with its first segment `from` replaced by `to` (`from` itself or `from.x`); else as it was. */
export function renamedPath(path: string, from: string, to: string): string {
  if (path === from) return to;
  return path.startsWith(`${from}.`) ? `${to}${path.slice(from.length)}` : path;
}

/** The schema with property `from` renamed `to`: key order kept, processor inputs and `required` followed. */
export function renameSchemaProperty(schema: Json, from: string, to: string): Json {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const renamed = Object.fromEntries(Object.entries(properties).map(([key, property]) => [key === from ? to : key, renameInputs(property, from, to)]));
  const next: Json = { ...schema, properties: renamed };
  if (Array.isArray(schema.required)) next.required = schema.required.map((name) => (name === from ? to : name));
  return next;
}

/** Every `{"property": path}` argument under a property's processors, renamed. */
function renameInputs(property: unknown, from: string, to: string): unknown {
  if (!isObject(property)) return property;
  const next: Json = { ...property };
  if (Array.isArray(property.processors))
    next.processors = property.processors.map((step) => (isObject(step) && isObject(step.in) ? { ...step, in: renameArguments(step.in, from, to) } : step));
  if (isObject(property.properties)) next.properties = Object.fromEntries(Object.entries(property.properties).map(([key, child]) => [key, renameInputs(child, from, to)]));
  return next;
}

/** Arguments are `{property}`, `{value}`, or (template's `context`) an object of arguments. */
function renameArguments(args: Json, from: string, to: string): Json {
  return Object.fromEntries(
    Object.entries(args).map(([name, arg]) => {
      if (!isObject(arg)) return [name, arg];
      if (typeof arg.property === "string") return [name, { ...arg, property: renamedPath(arg.property, from, to) }];
      if ("value" in arg) return [name, arg];
      return [name, renameArguments(arg, from, to)];
    }),
  );
}

function isObject(value: unknown): value is Json {
  return !!value && typeof value === "object" && !Array.isArray(value);
}
