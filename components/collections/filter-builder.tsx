"use client";

import { useState } from "react";
import { buildFilter, FILTER_OPERATORS, type FilterOperator, type FilterRow } from "@/lib/client/filter-builder";
import { Button, inputClass } from "@/components/ui";

/**
 * Property, operator, value rows that write the same filter JSON as the filter box: "Use filter"
 * puts it there and applies it, so the JSON stays the one source of truth and can be edited further.
 */
export function FilterBuilder({ properties, onUse }: { properties: string[]; onUse: (filter: Record<string, unknown>) => void }) {
  const [rows, setRows] = useState<FilterRow[]>([{ property: properties[0] ?? "", operator: "$eq", value: "" }]);
  const change = (index: number, patch: Partial<FilterRow>) => setRows((list) => list.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  const listId = "filter-builder-properties";
  return (
    <div className="mt-3 space-y-2 rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid="filter-builder">
      <datalist id={listId}>
        {properties.map((property) => (
          <option key={property} value={property} />
        ))}
      </datalist>
      {rows.map((row, index) => (
        <div key={index} className="grid grid-cols-[1fr_auto_1fr_auto] items-end gap-2">
          <label className="min-w-0 text-xs text-slate-600">
            Property {index + 1}
            <input list={listId} value={row.property} onChange={(e) => change(index, { property: e.target.value })} className={`mt-0.5 ${inputClass} font-mono`} />
          </label>
          <label className="text-xs text-slate-600">
            Operator {index + 1}
            <select value={row.operator} onChange={(e) => change(index, { operator: e.target.value as FilterOperator })} className={`mt-0.5 ${inputClass}`}>
              {FILTER_OPERATORS.map((operator) => (
                <option key={operator.value} value={operator.value}>
                  {operator.label}
                </option>
              ))}
            </select>
          </label>
          <label className="min-w-0 text-xs text-slate-600">
            Value {index + 1}
            <input
              value={row.value}
              onChange={(e) => change(index, { value: e.target.value })}
              placeholder={row.operator === "$in" || row.operator === "$nin" ? "a, b, 3" : row.operator === "$exists" ? "true or false" : '1965, true, Dune or "1965"'}
              className={`mt-0.5 ${inputClass}`}
            />
          </label>
          <Button variant="ghost" className="px-2 py-2 text-xs" aria-label={`Remove condition ${index + 1}`} onClick={() => setRows((list) => list.filter((_, i) => i !== index))}>
            ✕
          </Button>
        </div>
      ))}
      <div className="flex flex-wrap gap-2">
        <Button variant="secondary" className="px-2.5 py-1.5 text-xs" onClick={() => setRows((list) => [...list, { property: "", operator: "$eq", value: "" }])}>
          Add condition
        </Button>
        <Button className="px-2.5 py-1.5 text-xs" onClick={() => onUse(buildFilter(rows))}>
          Use filter
        </Button>
      </div>
      <p className="text-xs text-slate-500">Conditions are joined with AND. Numbers, true, false and null are typed values; quote them for text.</p>
    </div>
  );
}
