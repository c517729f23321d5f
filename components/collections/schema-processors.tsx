"use client";

import { useEffect, useState } from "react";
import type { PropertyError } from "@/lib/client/api";
import type { ProcessorValue } from "@/lib/client/processor-catalog";
import { ProcessorsEditor } from "./processors-editor";
import { orderedProperties } from "./schema-form";

/**
 * The processors of every top-level property of a schema, one ProcessorsEditor each (a form per
 * kind), editing the same schema the JSON box holds: a change here rewrites the JSON there. Array
 * properties take no processors (the API refuses them), so they are listed without an editor.
 * The API's 422 for a property (`errors` naming it, or "Recursion detected" naming several)
 * shows under that property's steps.
 */
export function SchemaProcessors({
  schema,
  onChange,
  errors,
}: {
  schema: Record<string, unknown>;
  onChange: (schema: Record<string, unknown>) => void;
  errors: PropertyError[];
}) {
  const properties = orderedProperties(schema);
  if (properties.length === 0) return null;
  const names = properties.map(([name]) => name);
  const setSteps = (name: string, steps: ProcessorValue[]) => {
    const current = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    const property = { ...current[name] };
    if (steps.length) property.processors = steps;
    else delete property.processors;
    onChange({ ...schema, properties: { ...current, [name]: property } });
  };
  return (
    <section aria-label="Processors" className="space-y-2">
      <h3 className="text-sm font-medium text-slate-700">Processors</h3>
      <p className="text-xs text-slate-500">Steps that compute a property when a document is written (docs/processors.md). Saved with the schema.</p>
      {properties.map(([name, property]) => {
        const steps = Array.isArray((property as { processors?: unknown }).processors) ? ((property as { processors: ProcessorValue[] }).processors) : [];
        const own = errors.filter((e) => e.property === name || e.property?.startsWith(`${name}.`));
        const isArray = property.type === "array" || (Array.isArray(property.type) && property.type.includes("array"));
        return (
          <PropertyDetails key={name} start={steps.length > 0} refused={own.length > 0} testId={`processors-of-${name}`}>
            <summary className="cursor-pointer text-sm">
              <span className="font-mono">{name}</span>{" "}
              <span className="text-xs text-slate-500">
                {isArray ? "array: no processors" : steps.length ? `${steps.length} ${steps.length === 1 ? "processor" : "processors"}` : "no processors"}
              </span>
              {own.length > 0 && <span className="ml-2 text-xs text-red-600">refused by the server</span>}
            </summary>
            {!isArray && (
              <div className="mt-2">
                <ProcessorsEditor property={name} value={steps} onChange={(next) => setSteps(name, next)} errors={own.map((e) => ({ ...e, property: name }))} properties={names.filter((n) => n !== name)} />
              </div>
            )}
          </PropertyDetails>
        );
      })}
    </section>
  );
}

/**
 * A property's processors, open from the start when it has some, and opened by the server's
 * refusal; otherwise as the user toggles it. (Bound to "has steps", removing the last step shut
 * it under the user's hands, with the "Add a processor" control inside.)
 */
function PropertyDetails({ start, refused, testId, children }: { start: boolean; refused: boolean; testId: string; children: React.ReactNode }) {
  const [open, setOpen] = useState(start || refused);
  useEffect(() => {
    if (refused) setOpen(true);
  }, [refused]);
  return (
    <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)} className="rounded-md border border-slate-200 px-3 py-2" data-testid={testId}>
      {children}
    </details>
  );
}
