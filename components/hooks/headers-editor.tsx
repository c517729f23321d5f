"use client";

import { headerRow, type HeaderRow } from "@/lib/client/hook-form";
import { Button, inputClass } from "@/components/ui";

/** The hook's own headers as name/value rows; errors (the browser's or the API's) on their row. */
export function HeadersEditor({
  rows,
  onChange,
  errors,
  generalError,
}: {
  rows: HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
  /** By row index. */
  errors: Partial<Record<number, string>>;
  generalError?: string;
}) {
  const update = (index: number, change: Partial<HeaderRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  return (
    <fieldset className="min-w-0">
      <legend className="text-sm font-medium text-slate-700">Headers</legend>
      <p className="text-xs text-slate-500">Sent with every delivery, e.g. an API key the receiver expects. Arca&apos;s own X-Hook-* headers cannot be replaced.</p>
      {rows.length > 0 && (
        <ul className="mt-2 space-y-2" aria-label="Headers">
          {rows.map((row, index) => {
            const error = errors[index];
            const errorId = `header-${row.key}-error`;
            return (
              <li key={row.key}>
                <div className="flex flex-wrap gap-2 sm:flex-nowrap">
                  <input
                    aria-label={`Header ${index + 1} name`}
                    placeholder="X-Api-Key"
                    value={row.name}
                    spellCheck={false}
                    autoComplete="off"
                    onChange={(e) => update(index, { name: e.target.value })}
                    aria-invalid={error ? true : undefined}
                    aria-describedby={error ? errorId : undefined}
                    className={`${inputClass} min-w-0 basis-full font-mono text-xs sm:basis-2/5`}
                  />
                  <input
                    aria-label={`Header ${index + 1} value`}
                    placeholder="value"
                    value={row.value}
                    spellCheck={false}
                    autoComplete="off"
                    onChange={(e) => update(index, { value: e.target.value })}
                    className={`${inputClass} min-w-0 flex-1 font-mono text-xs`}
                  />
                  <Button variant="ghost" className="px-2.5 text-xs text-red-700 hover:bg-red-50" aria-label={`Remove header ${index + 1}`} onClick={() => onChange(rows.filter((_, i) => i !== index))}>
                    Remove
                  </Button>
                </div>
                {error && (
                  <p id={errorId} className="mt-1 text-xs text-red-600">
                    {row.name.trim() ? `${row.name.trim()}: ` : ""}
                    {error}
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {generalError && <p className="mt-1 text-xs text-red-600">{generalError}</p>}
      <Button variant="secondary" className="mt-2 px-2.5 py-1.5 text-xs" onClick={() => onChange([...rows, headerRow()])}>
        Add header
      </Button>
    </fieldset>
  );
}
