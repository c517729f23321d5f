"use client";

import { useId, useState } from "react";
import type { PropertyError } from "@/lib/client/api";
import { argumentModes, initialArgument, requiredArgumentMode, newProcessorStep, processorKind, PROCESSOR_KINDS, type ArgumentDescription, type ArgumentMode, type ProcessorValue } from "@/lib/client/processor-catalog";
import { Button, inputClass, SelectField } from "@/components/ui";

type Argument = NonNullable<ProcessorValue["in"]>[string];
type Mode = ArgumentMode;

/**
 * The processors of one schema property (CONTRACT §7), as a form per kind: add, order, remove
 * and configure each step; every argument is either another property of the document or a
 * literal value (the source argument may also stay the property's own value). The API's 422
 * messages for the property (`errors` naming it) show under the list. The collection schema
 * editor mounts it per property (schema-processors.tsx) with `value`/`onChange` on the schema.
 */
export function ProcessorsEditor({
  property,
  value,
  onChange,
  errors = [],
  properties = [],
}: {
  /** The dotted path of the property carrying the processors (errors name it). */
  property: string;
  value: ProcessorValue[];
  onChange: (next: ProcessorValue[]) => void;
  errors?: PropertyError[];
  /** Other properties of the schema, offered for `{"property": ...}` arguments. */
  properties?: string[];
}) {
  const [adding, setAdding] = useState(PROCESSOR_KINDS[0].name);
  const own = errors.filter((e) => e.property === property);
  const replace = (index: number, next: ProcessorValue) => onChange(value.map((p, i) => (i === index ? next : p)));
  const move = (index: number, by: number) => {
    const next = [...value];
    const [item] = next.splice(index, 1);
    next.splice(index + by, 0, item);
    onChange(next);
  };
  return (
    <section aria-label={`Processors of ${property}`} className="space-y-3" data-testid="processors-editor">
      {value.length === 0 && <p className="text-sm text-slate-500">No processors: the value is stored as written.</p>}
      <ol className="space-y-3">
        {value.map((processor, index) => (
          <li key={index} className="rounded-md border border-slate-200 p-3">
            <div className="flex flex-wrap items-center justify-between gap-2">
              <h4 className="text-sm font-semibold text-slate-800">
                {index + 1}. {processorKind(processor.name)?.label ?? processor.name}{" "}
                <span className="font-normal text-slate-500">({processorKind(processor.name)?.output ?? "unknown kind"})</span>
              </h4>
              <div className="flex gap-1">
                <Button variant="secondary" aria-label={`Move step ${index + 1} up`} disabled={index === 0} onClick={() => move(index, -1)}>
                  ↑
                </Button>
                <Button variant="secondary" aria-label={`Move step ${index + 1} down`} disabled={index === value.length - 1} onClick={() => move(index, 1)}>
                  ↓
                </Button>
                <Button variant="secondary" aria-label={`Remove step ${index + 1}`} onClick={() => onChange(value.filter((_, i) => i !== index))}>
                  Remove
                </Button>
              </div>
            </div>
            <ProcessorForm processor={processor} properties={properties} onChange={(next) => replace(index, next)} />
          </li>
        ))}
      </ol>
      <div className="flex flex-wrap items-end gap-2">
        {/* One of these per property: the accessible name says whose. */}
        <SelectField label="Add a processor" aria-label={`Add a processor to ${property}`} value={adding} onChange={(e) => setAdding(e.target.value)}>
          {PROCESSOR_KINDS.map((kind) => (
            <option key={kind.name} value={kind.name}>
              {kind.label}
            </option>
          ))}
        </SelectField>
        <Button variant="secondary" onClick={() => onChange([...value, processorKind(adding) ? newProcessorStep(processorKind(adding)!, properties) : { name: adding, in: {} }])}>
          Add
        </Button>
      </div>
      {own.length > 0 && (
        <ul role="alert" className="space-y-0.5 text-xs text-red-600" data-testid="processor-errors">
          {own.map((e) => (
            <li key={e.message}>{e.message}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ProcessorForm({ processor, properties, onChange }: { processor: ProcessorValue; properties: string[]; onChange: (next: ProcessorValue) => void }) {
  const kind = processorKind(processor.name);
  if (!kind) return <p className="mt-2 text-sm text-red-600">Unknown kind {processor.name}: remove it.</p>;
  const args = processor.in ?? {};
  const set = (name: string, arg: Argument | undefined) => {
    const next = { ...args };
    if (arg === undefined) delete next[name];
    else next[name] = arg;
    onChange({ ...processor, in: next });
  };
  return (
    <div className="mt-2 grid gap-3 sm:grid-cols-2">
      {kind.args.map((arg) => (
        <ArgumentField
          key={arg.name}
          arg={arg}
          isSource={kind.source === arg.name}
          required={kind.required.includes(arg.name)}
          value={args[arg.name]}
          properties={properties}
          onChange={(next) => set(arg.name, next)}
        />
      ))}
    </div>
  );
}

function ArgumentField({
  arg,
  isSource,
  required,
  value,
  properties,
  onChange,
}: {
  arg: ArgumentDescription;
  isSource: boolean;
  required: boolean;
  value: Argument | undefined;
  properties: string[];
  onChange: (next: Argument | undefined) => void;
}) {
  const id = useId();
  const modes = argumentModes(arg, required);
  // A required argument never shows "not set": absent (a schema saved without it), it is asked
  // for in its first mode.
  const mode: Mode = value === undefined ? (required ? requiredArgumentMode(arg) : "default") : "property" in value ? "property" : "value";
  const literal = value && "value" in value ? value.value : undefined;
  // `context` is stored as the object of arguments itself, other JSON arguments as {"value": ...}.
  const shown = arg.name === "context" ? value : literal;
  const [draft, setDraft] = useState(() => (arg.input.type === "json" && shown !== undefined ? JSON.stringify(shown, null, 2) : ""));
  const [jsonError, setJsonError] = useState<string>();
  const defaultLabel = isSource ? "this property's value" : "not set";
  const setMode = (next: Mode) => onChange(initialArgument(arg, next, properties));
  return (
    <fieldset className="min-w-0">
      <legend className="text-sm font-medium text-slate-700">
        {arg.label}
        {required && <span className="text-red-600"> *</span>}
      </legend>
      {modes.length > 1 && (
        <select aria-label={`${arg.label}: from`} value={mode} onChange={(e) => setMode(e.target.value as Mode)} className={`mt-1 ${inputClass}`}>
          {modes.map((m) => (
            <option key={m} value={m}>
              {m === "default" ? defaultLabel : m === "property" ? "another property" : "a value"}
            </option>
          ))}
        </select>
      )}
      {mode === "property" && (
        <>
          <input
            aria-label={`${arg.label}: property path`}
            list={`${id}-properties`}
            value={value && "property" in value ? String(value.property) : ""}
            onChange={(e) => onChange({ property: e.target.value })}
            placeholder="e.g. title or address.city"
            className={`mt-1 ${inputClass}`}
          />
          <datalist id={`${id}-properties`}>
            {properties.map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
        </>
      )}
      {mode === "value" && arg.input.type === "enum" && (
        <select aria-label={`${arg.label}: value`} value={String(literal ?? "")} onChange={(e) => onChange({ value: e.target.value })} className={`mt-1 ${inputClass}`}>
          {arg.input.options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      )}
      {mode === "value" && arg.input.type === "number" && (
        <input
          type="number"
          aria-label={`${arg.label}: value`}
          min={arg.input.min}
          max={arg.input.max}
          step="any"
          value={typeof literal === "number" ? literal : ""}
          onChange={(e) => onChange({ value: e.target.value === "" ? 0 : Number(e.target.value) })}
          className={`mt-1 ${inputClass}`}
        />
      )}
      {mode === "value" && arg.input.type === "size" && (
        <div className="mt-1 flex gap-2">
          {(["width", "height"] as const).map((side, i) => (
            <input
              key={side}
              type="number"
              min={1}
              max={10000}
              aria-label={`${arg.label}: ${side}`}
              value={Array.isArray(literal) ? Number(literal[i]) : ""}
              onChange={(e) => {
                const size = Array.isArray(literal) ? [...literal] : [800, 600];
                size[i] = Number(e.target.value);
                onChange({ value: size });
              }}
              className={inputClass}
            />
          ))}
        </div>
      )}
      {mode === "value" && (arg.input.type === "text" || arg.input.type === "secret") &&
        (arg.input.type === "text" && arg.input.multiline ? (
          <textarea aria-label={`${arg.label}: value`} rows={3} value={String(literal ?? "")} onChange={(e) => onChange({ value: e.target.value })} className={`mt-1 font-mono ${inputClass}`} />
        ) : (
          <input
            type={arg.input.type === "secret" ? "password" : "text"}
            autoComplete="off"
            aria-label={`${arg.label}: value`}
            value={String(literal ?? "")}
            onChange={(e) => onChange({ value: e.target.value })}
            className={`mt-1 ${inputClass}`}
          />
        ))}
      {mode === "value" && arg.input.type === "json" && (
        <>
          <textarea
            aria-label={`${arg.label}: JSON`}
            aria-invalid={jsonError ? true : undefined}
            rows={4}
            value={draft}
            onChange={(e) => {
              setDraft(e.target.value);
              try {
                const parsed = JSON.parse(e.target.value || "null");
                setJsonError(undefined);
                // `context` is itself an object of arguments ({"name": {"property": "title"}}).
                onChange(arg.name === "context" ? (parsed as Record<string, unknown>) : { value: parsed });
              } catch (error) {
                setJsonError((error as Error).message);
              }
            }}
            placeholder={arg.name === "context" ? '{"name": {"property": "title"}, "site": {"value": "Arca"}}' : "[]"}
            className={`mt-1 font-mono ${inputClass}`}
          />
          {jsonError && <p className="mt-1 text-xs text-red-600">{jsonError}</p>}
        </>
      )}
    </fieldset>
  );
}
