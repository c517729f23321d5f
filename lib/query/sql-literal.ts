import { badRequest } from "@/lib/errors";

/**
 * A SQL string literal. Index definitions cannot take bind parameters, so the few literals that
 * must appear in SQL text (paths) go through here: quotes doubled, and backslashes, when present,
 * doubled inside an `E'...'` literal so the result is the same whatever
 * `standard_conforming_strings` says. NUL cannot be stored in PostgreSQL text at all.
 */
export function quoteLiteral(value: string): string {
  if (value.includes("\u0000")) throw badRequest("Names cannot contain NUL");
  const quoted = value.replace(/'/g, "''");
  return value.includes("\\") ? `E'${quoted.replace(/\\/g, "\\\\")}'` : `'${quoted}'`;
}

/** A `text[]` literal, every element double-quoted so commas, braces, spaces and `NULL` stay text. */
export function textArrayLiteral(items: readonly string[]): string {
  const body = items.map((item) => `"${item.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(",");
  return `${quoteLiteral(`{${body}}`)}::text[]`;
}

/** A lax SQL/JSON path over member names: `$."a"."b"`, names as JSON string literals. */
export function jsonPath(path: readonly string[], suffix = ""): string {
  return `$${path.map((segment) => `.${JSON.stringify(segment)}`).join("")}${suffix}`;
}
