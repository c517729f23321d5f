"use client";

import { useState } from "react";
import { parseJsonObject } from "@/lib/client/json-editing";
import { renameSchemaProperty } from "@/lib/client/rename-property";
import { Button, inputClass } from "@/components/ui";

const TYPES = ["string", "number", "integer", "boolean", "datetime", "file", "embed", "array", "object"];

type Property = Record<string, unknown>;

/**
 * The schema as a list of fields: add, rename (references to the field follow, `onRename` for the
 * indexes the form holds), retype, reorder (which also writes `position`),
 * required and immutable, remove. It edits the same JSON text as the schema box, keeping every
 * other key of the schema and of each property, and the properties' key order as shown.
 */
export function SchemaDesigner({ text, onChange, onRename }: { text: string; onChange: (text: string) => void; onRename?: (from: string, to: string) => void }) {
  const parsed = text.trim() ? parseJsonObject(text, "A schema") : ({ ok: true, value: {} } as const);
  const [name, setName] = useState("");
  const [type, setType] = useState("string");
  if (!parsed.ok) return <p className="text-sm text-red-700">Fix the JSON first: {parsed.error}</p>;
  const schema: Record<string, unknown> = parsed.value;
  const properties = (schema.properties && typeof schema.properties === "object" && !Array.isArray(schema.properties) ? schema.properties : {}) as Record<string, Property>;
  const entries = Object.entries(properties);

  const write = (next: [string, Property][], renumber = false) => {
    const rebuilt = Object.fromEntries(next.map(([key, property], index) => [key, renumber ? { ...property, position: index + 1 } : property]));
    onChange(JSON.stringify({ type: "object", ...schema, properties: rebuilt }, null, 2));
  };
  const update = (index: number, patch: Property) =>
    write(entries.map(([key, property], i) => [key, i === index ? Object.fromEntries(Object.entries({ ...property, ...patch }).filter(([, v]) => v !== undefined)) : property]));
  const nameTaken = name.trim() !== "" && name.trim() in properties;

  return (
    <div className="space-y-2" data-testid="schema-designer">
      {entries.length === 0 && <p className="text-sm text-slate-500">No fields: any document is accepted. Add one below.</p>}
      {entries.map(([key, property], index) => {
        const current = Array.isArray(property.type) ? String(property.type[0]) : String(property.type ?? "string");
        return (
          <fieldset key={`${index}-${key}`} className="flex flex-wrap items-end gap-2 rounded-md border border-slate-200 p-2">
            <legend className="sr-only">Field {index + 1}</legend>
            <label className="text-xs text-slate-600">
              Name of field {index + 1}
              <input
                defaultValue={key}
                onBlur={(e) => {
                  const next = e.target.value.trim();
                  // `_id` has its own rules, and a dot would read as a path into another property.
                  if (!next || next === key || next in properties || next === "_id" || next.includes(".")) return void (e.target.value = key);
                  // Processor inputs and the required list follow the rename; the form renames indexes.
                  onChange(JSON.stringify({ type: "object", ...renameSchemaProperty(schema, key, next) }, null, 2));
                  onRename?.(key, next);
                }}
                className={`mt-0.5 ${inputClass} w-40 font-mono`}
              />
            </label>
            <label className="text-xs text-slate-600">
              Type of field {index + 1}
              <select value={current} onChange={(e) => update(index, { type: e.target.value })} className={`mt-0.5 ${inputClass} w-32`}>
                {[...new Set([current, ...TYPES])].map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            </label>
            <label className="flex items-center gap-1 pb-2 text-xs text-slate-700">
              <input type="checkbox" checked={property.required === true} onChange={(e) => update(index, { required: e.target.checked || undefined })} className="h-4 w-4 accent-indigo-600" />
              Required<span className="sr-only"> {key}</span>
            </label>
            <label className="flex items-center gap-1 pb-2 text-xs text-slate-700">
              <input type="checkbox" checked={property.immutable === true} onChange={(e) => update(index, { immutable: e.target.checked || undefined })} className="h-4 w-4 accent-indigo-600" />
              Immutable<span className="sr-only"> {key}</span>
            </label>
            <span className="ml-auto flex gap-1">
              <Button variant="ghost" className="px-2 py-1 text-xs" disabled={index === 0} aria-label={`Move ${key} up`} onClick={() => write(swap(entries, index, index - 1), true)}>
                ↑
              </Button>
              <Button variant="ghost" className="px-2 py-1 text-xs" disabled={index === entries.length - 1} aria-label={`Move ${key} down`} onClick={() => write(swap(entries, index, index + 1), true)}>
                ↓
              </Button>
              <Button variant="ghost" className="px-2 py-1 text-xs text-red-700" aria-label={`Remove ${key}`} onClick={() => write(entries.filter((_, i) => i !== index))}>
                Remove
              </Button>
            </span>
          </fieldset>
        );
      })}
      <div className="flex flex-wrap items-end gap-2">
        <label className="text-xs text-slate-600">
          New field name
          <input value={name} onChange={(e) => setName(e.target.value)} aria-invalid={nameTaken || undefined} className={`mt-0.5 ${inputClass} w-40 font-mono`} />
        </label>
        <label className="text-xs text-slate-600">
          New field type
          <select value={type} onChange={(e) => setType(e.target.value)} className={`mt-0.5 ${inputClass} w-32`}>
            {TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <Button
          variant="secondary"
          disabled={!name.trim() || nameTaken}
          onClick={() => {
            write([...entries, [name.trim(), { type, position: entries.length + 1 }]]);
            setName("");
          }}
        >
          Add field
        </Button>
        {nameTaken && <span className="pb-2 text-xs text-red-700">A field with this name exists.</span>}
      </div>
    </div>
  );
}

function swap<T>(list: T[], a: number, b: number): T[] {
  const copy = [...list];
  [copy[a], copy[b]] = [copy[b], copy[a]];
  return copy;
}
