"use client";

import type { CollectionIndex } from "@/lib/client/types";
import { Button, inputClass } from "@/components/ui";

/** PostgreSQL text search languages the API takes (docs/api.md, Indexes). */
export const TEXT_LANGUAGES: Record<string, string> = {
  en: "English",
  ru: "Russian",
  de: "German",
  fr: "French",
  es: "Spanish",
  it: "Italian",
  pt: "Portuguese",
  nl: "Dutch",
  sv: "Swedish",
  no: "Norwegian",
  da: "Danish",
  fi: "Finnish",
  hu: "Hungarian",
  ro: "Romanian",
  tr: "Turkish",
  ar: "Arabic",
  hy: "Armenian",
  eu: "Basque",
  ca: "Catalan",
  el: "Greek",
  et: "Estonian",
  hi: "Hindi",
  id: "Indonesian",
  ga: "Irish",
  lt: "Lithuanian",
  ne: "Nepali",
  sr: "Serbian",
  ta: "Tamil",
  yi: "Yiddish",
};

/** One row as edited: compound properties typed as "a, b.c". */
export interface IndexRow {
  key: number;
  type: "simple" | "compound" | "text";
  property: string;
  properties: string;
  unique: boolean;
  language: string;
}

let nextKey = 1;

export function toRows(indexes: CollectionIndex[]): IndexRow[] {
  return indexes.map((index) => ({
    key: nextKey++,
    type: index.type,
    property: index.type === "compound" ? "" : index.property,
    properties: index.type === "compound" ? index.properties.join(", ") : "",
    unique: index.type !== "text" && !!index.unique,
    language: index.type === "text" ? (index.language ?? "en") : "en",
  }));
}

export function fromRows(rows: IndexRow[]): CollectionIndex[] {
  return rows.map((row) => {
    if (row.type === "compound")
      return {
        type: "compound",
        properties: row.properties
          .split(",")
          .map((p) => p.trim())
          .filter(Boolean),
        unique: row.unique,
      };
    if (row.type === "text") return { type: "text", property: row.property.trim(), language: row.language };
    return { type: "simple", property: row.property.trim(), unique: row.unique };
  });
}

const PROPERTY_PATH = /^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/;

/** Errors per row (by index) and for the whole list, checked as the user types. */
export function checkRows(rows: IndexRow[]): { rows: Record<number, string>; all?: string } {
  const out: Record<number, string> = {};
  rows.forEach((row, i) => {
    if (row.type === "compound") {
      const parts = row.properties.split(",").map((p) => p.trim());
      if (parts.length < 2 || parts.some((p) => !PROPERTY_PATH.test(p))) out[i] = "Name two or more properties, separated by commas (e.g. author, year).";
    } else if (!PROPERTY_PATH.test(row.property.trim())) out[i] = "Name a property (dotted paths like meta.year work).";
  });
  const texts = rows.filter((row) => row.type === "text").length;
  return { rows: out, all: texts > 1 ? "A collection has at most one text index." : undefined };
}

/**
 * The index editor: simple (one property, optionally unique), compound (several, optionally
 * unique) and text (one property, in a language) indexes, added and removed as rows.
 */
export function IndexEditor({
  rows,
  onChange,
  serverErrors,
  disabled,
  suggestions,
}: {
  rows: IndexRow[];
  onChange: (rows: IndexRow[]) => void;
  serverErrors: { property: string | null; message: string }[];
  disabled?: boolean;
  suggestions: string[];
}) {
  const checked = checkRows(rows);
  const set = (i: number, patch: Partial<IndexRow>) => onChange(rows.map((row, j) => (j === i ? { ...row, ...patch } : row)));
  const listId = "index-property-suggestions";
  const allErrors = [checked.all, ...serverErrors.filter((e) => e.property === "indexes").map((e) => e.message)].filter(Boolean);
  return (
    <fieldset className="min-w-0 space-y-3" disabled={disabled}>
      <legend className="text-sm font-medium text-slate-700">Indexes</legend>
      <p className="text-xs text-slate-500">
        Indexes speed up filters and sorting on a property; a unique one refuses duplicates; a text index enables full-text search.
      </p>
      <datalist id={listId}>
        {suggestions.map((s) => (
          <option key={s} value={s} />
        ))}
      </datalist>
      {rows.length === 0 && <p className="text-sm text-slate-500">No indexes.</p>}
      <ol className="space-y-3">
        {rows.map((row, i) => {
          const n = i + 1;
          const rowServer = serverErrors.filter((e) => e.property?.startsWith(`indexes.${i}`)).map((e) => `${e.property?.replace(`indexes.${i}.`, "")}: ${e.message}`);
          const error = checked.rows[i];
          const errorId = `index-${row.key}-error`;
          return (
            <li key={row.key} className="rounded-md border border-slate-200 p-3" data-testid={`index-row-${n}`}>
              <div className="grid gap-3 sm:grid-cols-[9rem_1fr_auto] sm:items-end">
                <div>
                  <label htmlFor={`index-${row.key}-type`} className="block text-xs font-medium text-slate-600">
                    Index {n} type
                  </label>
                  <select
                    id={`index-${row.key}-type`}
                    value={row.type}
                    onChange={(e) => set(i, { type: e.target.value as IndexRow["type"] })}
                    className={`mt-1 ${inputClass}`}
                  >
                    <option value="simple">Simple</option>
                    <option value="compound">Compound</option>
                    <option value="text">Text</option>
                  </select>
                </div>
                <div className="min-w-0">
                  <label htmlFor={`index-${row.key}-property`} className="block text-xs font-medium text-slate-600">
                    {row.type === "compound" ? `Index ${n} properties` : `Index ${n} property`}
                  </label>
                  <input
                    id={`index-${row.key}-property`}
                    list={listId}
                    value={row.type === "compound" ? row.properties : row.property}
                    placeholder={row.type === "compound" ? "author, year" : "title"}
                    onChange={(e) => set(i, row.type === "compound" ? { properties: e.target.value } : { property: e.target.value })}
                    aria-invalid={error || rowServer.length ? true : undefined}
                    aria-describedby={error || rowServer.length ? errorId : undefined}
                    className={`mt-1 ${inputClass} font-mono`}
                  />
                </div>
                <Button variant="ghost" className="text-red-700 hover:bg-red-50" onClick={() => onChange(rows.filter((_, j) => j !== i))} aria-label={`Remove index ${n}`}>
                  Remove
                </Button>
              </div>
              <div className="mt-2 flex flex-wrap items-center gap-4">
                {row.type === "text" ? (
                  <label className="flex items-center gap-2 text-sm text-slate-700">
                    Language
                    <select value={row.language} onChange={(e) => set(i, { language: e.target.value })} className={`${inputClass} w-auto py-1`} aria-label={`Index ${n} language`}>
                      {Object.entries(TEXT_LANGUAGES).map(([code, name]) => (
                        <option key={code} value={code}>
                          {name} ({code})
                        </option>
                      ))}
                    </select>
                  </label>
                ) : (
                  <label className="flex items-center gap-2 text-sm text-slate-700">
                    <input type="checkbox" checked={row.unique} onChange={(e) => set(i, { unique: e.target.checked })} className="h-4 w-4 accent-indigo-600" />
                    Unique
                  </label>
                )}
              </div>
              {(error || rowServer.length > 0) && (
                <p id={errorId} className="mt-1 text-xs text-red-600">
                  {[error, ...rowServer].filter(Boolean).join(" ")}
                </p>
              )}
            </li>
          );
        })}
      </ol>
      {allErrors.length > 0 && (
        <p className="text-xs text-red-600" role="alert">
          {allErrors.join(" ")}
        </p>
      )}
      <Button
        variant="secondary"
        onClick={() => onChange([...rows, { key: nextKey++, type: "simple", property: "", properties: "", unique: false, language: "en" }])}
      >
        Add index
      </Button>
    </fieldset>
  );
}
