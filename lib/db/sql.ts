/**
 * A tiny SQL fragment builder: values always travel as bind parameters, never as text.
 * Fragments nest, so the query compiler and the domain code can assemble statements
 * piece by piece and still end with one parameterized query for `pg`.
 */
export class Sql {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}

  /** Renders `$1, $2, ...` placeholders, numbering from `firstIndex`. */
  toQuery(firstIndex = 1): { text: string; values: unknown[] } {
    const values: unknown[] = [];
    const text = render(this, values, firstIndex);
    return { text, values };
  }
}

function render(fragment: Sql, values: unknown[], firstIndex: number): string {
  let text = fragment.strings[0];
  for (let i = 0; i < fragment.values.length; i++) {
    const value = fragment.values[i];
    if (value instanceof Sql) text += render(value, values, firstIndex);
    else {
      values.push(value);
      text += `$${values.length + firstIndex - 1}`;
    }
    text += fragment.strings[i + 1];
  }
  return text;
}

/** Tagged template: interpolated `Sql` fragments are inlined, anything else becomes a parameter. */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  return new Sql([...strings], values);
}

/** Trusted SQL text (keywords, operators chosen by our code). Never pass user input. */
export function raw(text: string): Sql {
  return new Sql([text], []);
}

export const empty = raw("");

/** A quoted identifier (table, column, index name). */
export function ident(name: string): Sql {
  return raw(`"${name.replace(/"/g, '""')}"`);
}

export function join(parts: readonly Sql[], separator = ", "): Sql {
  if (parts.length === 0) return empty;
  const strings = [""];
  for (let i = 1; i < parts.length; i++) strings.push(separator);
  strings.push("");
  return new Sql(strings, parts);
}
