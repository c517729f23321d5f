import { setOwn } from "../query/json-input";

/** The processor arguments that carry a vendor's credential (lib/processors/vendor-processors.ts, speech-processors.ts). */
export const SECRET_ARGUMENTS = new Set(["api_key", "subscription_key", "language_token"]);

const MASKED_SECRET = "********";

/**
 * A collection definition as shown to those who may read it but not manage it (members,
 * read-only tokens): the literal credentials its processors carry (`"in": {"api_key": {"value":
 * ...}}`) masked, as hooks' signing secrets are. The stored schema is untouched.
 */
export function withProcessorSecretsMasked<T>(definition: T): T {
  return mask(definition) as T;
}

function mask(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(mask);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    setOwn(out, key, key === "processors" && Array.isArray(item) ? item.map(maskProcessor) : mask(item));
  }
  return out;
}

function maskProcessor(processor: unknown): unknown {
  if (!processor || typeof processor !== "object" || Array.isArray(processor)) return processor;
  const spec = processor as Record<string, unknown>;
  if (!spec.in || typeof spec.in !== "object" || Array.isArray(spec.in)) return processor;
  const args: Record<string, unknown> = {};
  for (const [name, arg] of Object.entries(spec.in as Record<string, unknown>)) {
    const literal = arg && typeof arg === "object" && !Array.isArray(arg) && "value" in arg;
    setOwn(args, name, SECRET_ARGUMENTS.has(name) && literal ? { ...(arg as object), value: MASKED_SECRET } : arg);
  }
  return { ...spec, in: args };
}
