"use client";

import { useId } from "react";
import type { PropertyError } from "@/lib/client/api";
import type { FileRecord } from "@/lib/client/types";
import { inputClass, JsonField } from "@/components/ui";
import { EmbedPicker } from "./embed-picker";
import { FileField } from "./file-field";

interface PropertySchema {
  type?: string | string[];
  enum?: unknown[];
  required?: boolean;
  immutable?: boolean;
  position?: number;
  description?: string;
  title?: string;
  collection?: string;
  field?: string;
}

/** A schema's properties in `position` order, then the schema's own key order (a stable sort). */
export function orderedProperties(schema: Record<string, unknown> | null | undefined): [string, PropertySchema][] {
  const properties = schema?.properties;
  if (!properties || typeof properties !== "object" || Array.isArray(properties)) return [];
  const entries = Object.entries(properties as Record<string, PropertySchema>).filter(([, p]) => p && typeof p === "object");
  const position = (p: PropertySchema) => (typeof p.position === "number" ? p.position : Number.POSITIVE_INFINITY);
  return entries.sort((a, b) => position(a[1]) - position(b[1]));
}

function typeOf(property: PropertySchema): string {
  const type = Array.isArray(property.type) ? property.type.find((t) => t !== "null") : property.type;
  return type ?? "any";
}

/** ISO 8601 (UTC) to the `datetime-local` input's local "YYYY-MM-DDTHH:mm:ss", and back. */
function toLocalInput(value: unknown): string {
  if (typeof value !== "string" || !value) return "";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return "";
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 19);
}

/**
 * A document as a form built from its collection's schema: one input per property by type (text,
 * number, checkbox, date and time, a select for an enum, a small JSON box for arrays and objects,
 * a searchable picker of the linked collection for an embed, an upload with a preview for a
 * file), with the API's message under the property it names. It edits the same object the JSON
 * box holds; a file upload is its own request (`onFileUploaded` then records it as saved).
 */
export function SchemaForm({
  projectId,
  collectionId,
  documentId,
  schema,
  value,
  onChange,
  onFileUploaded,
  errors,
  creating,
}: {
  projectId: string;
  collectionId: string;
  /** The saved document's id; undefined while creating (no file can be uploaded yet). */
  documentId?: string;
  schema: Record<string, unknown> | null;
  value: Record<string, unknown>;
  onChange: (value: Record<string, unknown>) => void;
  onFileUploaded: (property: string, record: FileRecord) => void;
  errors: PropertyError[];
  creating: boolean;
}) {
  const id = useId();
  const set = (name: string, next: unknown) => {
    const copy = { ...value };
    if (next === undefined) delete copy[name];
    else copy[name] = next;
    onChange(copy);
  };
  const messageFor = (name: string) =>
    errors
      .filter((e) => e.property === name || e.property?.startsWith(`${name}.`) || e.property?.startsWith(`${name}[`))
      .map((e) => (e.property === name ? e.message : `${e.property}: ${e.message}`))
      .join("; ");
  // `_id` has its own box first; a schema that describes it too (the system collections') must
  // not add a second one under the same input id.
  const fields: [string, PropertySchema][] = [
    ["_id", { type: "string", description: creating ? "Leave empty to have one generated." : undefined, immutable: true }],
    ...orderedProperties(schema).filter(([name]) => name !== "_id"),
  ];

  return (
    <div className="space-y-4" data-testid="schema-form">
      {fields.map(([name, property]) => {
        const fieldId = `${id}-${name}`;
        const message = messageFor(name);
        const hint = property.description;
        const describedBy = [hint ? `${fieldId}-hint` : "", message ? `${fieldId}-error` : ""].filter(Boolean).join(" ") || undefined;
        const type = typeOf(property);
        const current = value[name];
        const locked = (name === "_id" && !creating) || (!creating && property.immutable === true && current !== undefined && name !== "_id");
        const common = {
          id: fieldId,
          name,
          disabled: locked,
          "aria-invalid": message ? true : undefined,
          "aria-describedby": describedBy,
        } as const;
        let input: React.ReactNode;
        if (name !== "_id" && (type === "object" || type === "array" || type === "any")) {
          return (
            <div key={name}>
              <JsonField
                label={`${name}${property.required ? " *" : ""}`}
                rows={3}
                value={current === undefined ? "" : JSON.stringify(current, null, 2)}
                onChange={(text) => {
                  if (!text.trim()) return set(name, undefined);
                  try {
                    set(name, JSON.parse(text));
                  } catch {
                    // Half-typed JSON: kept in the box until it parses.
                  }
                }}
                errors={message ? [message] : []}
                hint={hint ?? (type === "array" ? "A JSON array." : "JSON.")}
              />
            </div>
          );
        } else if (type === "boolean") {
          input = <input type="checkbox" {...common} checked={current === true} onChange={(e) => set(name, e.target.checked)} className="mt-2 h-4 w-4 accent-indigo-600" />;
        } else if (Array.isArray(property.enum)) {
          const options = property.enum;
          input = (
            <select {...common} value={options.findIndex((o) => JSON.stringify(o) === JSON.stringify(current))} onChange={(e) => set(name, Number(e.target.value) < 0 ? undefined : options[Number(e.target.value)])} className={`mt-1 ${inputClass}`}>
              <option value={-1}>(not set)</option>
              {options.map((option, index) => (
                <option key={index} value={index}>
                  {typeof option === "string" ? option : JSON.stringify(option)}
                </option>
              ))}
            </select>
          );
        } else if (type === "number" || type === "integer") {
          input = (
            <input
              type="number"
              step={type === "integer" ? 1 : "any"}
              {...common}
              value={typeof current === "number" ? current : ""}
              onChange={(e) => set(name, e.target.value === "" ? undefined : Number(e.target.value))}
              className={`mt-1 ${inputClass}`}
            />
          );
        } else if (type === "datetime") {
          input = (
            <input
              type="datetime-local"
              step={1}
              {...common}
              value={toLocalInput(current)}
              onChange={(e) => set(name, e.target.value ? new Date(e.target.value).toISOString() : undefined)}
              className={`mt-1 ${inputClass}`}
            />
          );
        } else if (type === "file") {
          input = (
            <FileField
              projectId={projectId}
              collectionId={collectionId}
              documentId={documentId}
              property={name}
              value={current}
              onUploaded={(record) => onFileUploaded(name, record)}
              onRemove={() => set(name, undefined)}
              id={fieldId}
              describedBy={describedBy}
              disabled={locked}
            />
          );
        } else if (type === "embed" && property.collection) {
          input = (
            <EmbedPicker
              projectId={projectId}
              collection={property.collection}
              field={property.field}
              value={current}
              onChange={(key) => set(name, key)}
              id={fieldId}
              disabled={locked}
              invalid={!!message}
              describedBy={describedBy}
              required={property.required === true}
            />
          );
        } else {
          input = (
            <input
              type="text"
              {...common}
              value={typeof current === "string" ? current : current === undefined || current === null ? "" : JSON.stringify(current)}
              placeholder={type === "embed" ? `The key of a document in ${property.collection ?? "the linked collection"}` : undefined}
              onChange={(e) => set(name, e.target.value === "" && (name === "_id" || !property.required) ? undefined : e.target.value)}
              className={`mt-1 ${inputClass} ${name === "_id" ? "font-mono" : ""}`}
            />
          );
        }
        return (
          <div key={name}>
            <label htmlFor={fieldId} className="block text-sm font-medium text-slate-700">
              <span className="font-mono">{name}</span>
              {property.required && <span aria-hidden> *</span>}
              {property.required && <span className="sr-only"> (required)</span>}
              {/* A separator for screen readers ("year, integer", not "yearinteger"); the margin shows one. */}
              <span className="sr-only">,</span>{" "}
              <span className="ml-2 text-xs font-normal text-slate-500">{type}</span>
            </label>
            {input}
            {hint && (
              <p id={`${fieldId}-hint`} className="mt-1 text-xs text-slate-500">
                {hint}
              </p>
            )}
            {message && (
              <p id={`${fieldId}-error`} className="mt-1 text-xs text-red-600" data-testid={`field-error-${name}`}>
                {message}
              </p>
            )}
          </div>
        );
      })}
    </div>
  );
}
