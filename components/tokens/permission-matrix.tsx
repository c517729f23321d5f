"use client";

import { useState } from "react";
import { TOKEN_ACTIONS, type TokenAction } from "@/lib/client/types";
import { Button, inputClass } from "@/components/ui";

export type Matrix = Record<string, Record<TokenAction, boolean>>;

const COLLECTION_NAME = /^_?[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * Collections x read/write/update/delete, or everything. Rows come from the project's collections;
 * more can be typed in (a collection may not exist yet, or the list may be unavailable).
 */
export function PermissionMatrix({
  collections,
  all,
  onAllChange,
  matrix,
  onMatrixChange,
}: {
  collections: string[];
  all: boolean;
  onAllChange: (value: boolean) => void;
  matrix: Matrix;
  onMatrixChange: (matrix: Matrix) => void;
}) {
  const [extra, setExtra] = useState<string[]>([]);
  const [typed, setTyped] = useState("");
  const [typedError, setTypedError] = useState<string | undefined>();
  // The project's own collections first, then the system ones (`_files`, `_users`, ...).
  const rows = [...new Set([...collections, ...extra])].sort(
    (a, b) => Number(a.startsWith("_")) - Number(b.startsWith("_")) || a.localeCompare(b),
  );

  const set = (collection: string, action: TokenAction, value: boolean) =>
    onMatrixChange({ ...matrix, [collection]: { ...emptyRow(), ...matrix[collection], [action]: value } });

  function addCollection(event?: React.FormEvent | React.KeyboardEvent) {
    event?.preventDefault();
    const name = typed.trim();
    if (!name) return;
    if (!COLLECTION_NAME.test(name)) {
      setTypedError("Letters, digits, _ and -, up to 64 characters.");
      return;
    }
    setExtra((current) => (current.includes(name) || collections.includes(name) ? current : [...current, name]));
    setTyped("");
    setTypedError(undefined);
  }

  return (
    <fieldset className="min-w-0 space-y-3">
      <legend className="text-sm font-medium text-slate-700">Permissions</legend>
      <label className="flex items-start gap-3 rounded-md border border-slate-200 p-3">
        <input type="checkbox" checked={all} onChange={(e) => onAllChange(e.target.checked)} className="mt-0.5 h-4 w-4 accent-indigo-600" />
        <span>
          <span className="block text-sm font-medium text-slate-800">Full access</span>
          <span className="block text-xs text-slate-500">Every action on every collection, including ones created later.</span>
        </span>
      </label>

      {!all && (
        <div className="space-y-3">
          {rows.length === 0 ? (
            <p className="text-sm text-slate-500">No collections to choose from yet: add one by name below.</p>
          ) : (
            <div className="overflow-x-auto rounded-md border border-slate-200">
              <table className="w-full text-sm">
                <caption className="sr-only">Allowed actions per collection</caption>
                <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
                  <tr>
                    <th scope="col" className="px-3 py-2 text-left font-medium">
                      Collection
                    </th>
                    {TOKEN_ACTIONS.map((action) => (
                      <th key={action} scope="col" className="px-2 py-2 text-center font-medium">
                        {action}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {rows.map((collection) => (
                    <tr key={collection}>
                      <th scope="row" className="max-w-40 truncate px-3 py-2 text-left font-mono text-xs font-normal text-slate-800">
                        {collection}
                      </th>
                      {TOKEN_ACTIONS.map((action) => (
                        <td key={action} className="px-2 py-2 text-center">
                          <input
                            type="checkbox"
                            aria-label={`${action} ${collection}`}
                            checked={matrix[collection]?.[action] ?? false}
                            onChange={(e) => set(collection, action, e.target.checked)}
                            className="h-4 w-4 accent-indigo-600"
                          />
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <div>
            <label htmlFor="add-collection" className="block text-xs font-medium text-slate-600">
              Add a collection by name
            </label>
            <div className="mt-1 flex gap-2">
              <input
                id="add-collection"
                value={typed}
                placeholder="e.g. articles"
                onChange={(e) => setTyped(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === "Enter") addCollection(e);
                }}
                aria-invalid={typedError ? true : undefined}
                aria-describedby={typedError ? "add-collection-error" : undefined}
                className={inputClass}
              />
              <Button variant="secondary" onClick={() => addCollection()}>
                Add
              </Button>
            </div>
            {typedError && (
              <p id="add-collection-error" className="mt-1 text-xs text-red-600">
                {typedError}
              </p>
            )}
          </div>
        </div>
      )}
    </fieldset>
  );
}

export function emptyRow(): Record<TokenAction, boolean> {
  return { read: false, write: false, update: false, delete: false };
}
