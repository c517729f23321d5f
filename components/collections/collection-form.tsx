"use client";

import { useEffect, useRef, useState } from "react";
import { ApiError, describeError, type PropertyError } from "@/lib/client/api";
import { checkSchema, parseJsonObject, schemaColumns } from "@/lib/client/json-editing";
import { renamedPath } from "@/lib/client/rename-property";
import type { CollectionDefinition, CollectionInput } from "@/lib/client/types";
import { Alert, Button, JsonField, TextField } from "@/components/ui";
import { checkRows, fromRows, IndexEditor, toRows, type IndexRow } from "./index-editor";
import { SchemaDesigner } from "./schema-designer";
import { SchemaProcessors } from "./schema-processors";

const COLLECTION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export const EXAMPLE_SCHEMA = `{
  "type": "object",
  "properties": {
    "title": { "type": "string", "required": true, "position": 1 },
    "year": { "type": "integer", "position": 2 }
  }
}`;

/**
 * Create or edit a collection: id (create only), name, description, a JSON Schema editor checked
 * as you type, and the index editor. The server's 422 lands beside the field it names.
 */
export function CollectionForm({
  initial,
  busy,
  error,
  submitLabel,
  onSubmit,
  onCancel,
  disabled,
}: {
  initial?: CollectionDefinition;
  busy: boolean;
  error: unknown;
  submitLabel: string;
  onSubmit: (input: CollectionInput & { _id: string }) => void;
  onCancel?: () => void;
  disabled?: boolean;
}) {
  const creating = !initial;
  const [id, setId] = useState(initial?._id ?? "");
  const [name, setName] = useState(initial?.name ?? "");
  const [description, setDescription] = useState(initial?.description ?? "");
  // A new collection starts without a schema: the example is a placeholder, never saved by accident.
  const [schemaText, setSchemaText] = useState(initial?.schema ? JSON.stringify(initial.schema, null, 2) : "");
  const [rows, setRows] = useState<IndexRow[]>(() => toRows(initial?.indexes ?? []));
  const [designing, setDesigning] = useState(false);

  // Checked as you type: empty = no schema (any document is accepted).
  const parsed = schemaText.trim() ? parseJsonObject(schemaText, "A schema") : ({ ok: true, value: null } as const);
  const schemaErrors = parsed.ok ? (parsed.value ? checkSchema(parsed.value) : []) : [parsed.error];
  const indexCheck = checkRows(rows);
  const idError = creating && id && !COLLECTION_ID.test(id) ? (id.startsWith("_") ? "Names starting with _ are reserved for system collections." : "1-64 letters, digits, _ or -, starting with a letter or digit.") : undefined;
  const valid = (!creating || (id && !idError)) && schemaErrors.length === 0 && !Object.keys(indexCheck.rows).length && !indexCheck.all;

  const apiErrors: PropertyError[] = error instanceof ApiError ? error.errors : [];
  const serverFor = (prefix: string) => apiErrors.filter((e) => e.property === prefix || e.property?.startsWith(`${prefix}.`));
  const shownElsewhere = (e: PropertyError) => ["_id", "name", "description"].includes(e.property ?? "") || e.property?.startsWith("schema") || e.property?.startsWith("indexes");
  const generalError = error && !(error instanceof ApiError && error.errors.length && error.errors.every(shownElsewhere)) ? describeError(error) : undefined;
  const schemaServer = serverFor("schema").map((e) => `Server: ${e.property === "schema" ? "" : `${e.property}: `}${e.message}`);

  // A refusal is said beside the button that was pressed, and focus moves to it (a screen reader
  // reads it; a sighted user sees it without scrolling up).
  const errorRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (error) errorRef.current?.focus();
  }, [error]);

  function submit(event: React.FormEvent) {
    event.preventDefault();
    if (!valid || !parsed.ok) return;
    onSubmit({ _id: id.trim(), name: name.trim(), description: description.trim(), schema: parsed.value, indexes: fromRows(rows) });
  }

  return (
    <form onSubmit={submit} className="space-y-5" noValidate aria-label={creating ? "New collection" : "Collection definition"}>
      <fieldset disabled={disabled} className="min-w-0 space-y-5">
        <div className="grid gap-4 sm:grid-cols-2">
          {creating ? (
            <TextField
              label="Collection ID"
              name="collection-id"
              required
              value={id}
              autoFocus
              placeholder="articles"
              onChange={(e) => setId(e.target.value.trim())}
              error={idError ?? serverFor("_id")[0]?.message}
              hint="Used in the API path: /api/collections/<id>/documents/"
            />
          ) : null}
          <TextField label="Name" name="collection-name" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} error={serverFor("name")[0]?.message} />
          <TextField
            label="Description"
            name="collection-description"
            className={creating ? "sm:col-span-2" : ""}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            error={serverFor("description")[0]?.message}
          />
        </div>
        <div role="group" aria-label="Schema editor" className="inline-flex rounded-md border border-slate-300 p-0.5 text-xs">
          {([false, true] as const).map((fields) => (
            <button
              key={String(fields)}
              type="button"
              aria-pressed={designing === fields}
              onClick={() => setDesigning(fields)}
              className={`rounded px-2.5 py-1 font-medium ${designing === fields ? "bg-indigo-600 text-white" : "text-slate-700 hover:bg-slate-100"}`}
            >
              {fields ? "Fields" : "JSON"}
            </button>
          ))}
        </div>
        {designing && (
          <SchemaDesigner
            text={schemaText}
            onChange={setSchemaText}
            onRename={(from, to) =>
              setRows((current) =>
                current.map((row) => ({
                  ...row,
                  property: row.property.trim() ? renamedPath(row.property.trim(), from, to) : row.property,
                  properties: row.properties && row.properties.split(",").map((p) => renamedPath(p.trim(), from, to)).join(", "),
                })),
              )
            }
          />
        )}
        {!designing && (
          <JsonField
            label="Schema (JSON Schema)"
            name="schema"
            rows={14}
            value={schemaText}
            onChange={setSchemaText}
            placeholder={EXAMPLE_SCHEMA}
            errors={[...schemaErrors, ...schemaServer]}
            hint={
              <>
                Draft 4, with Arca&apos;s additions: <code>&quot;required&quot;: true</code>, <code>&quot;position&quot;</code> (column order),{" "}
                <code>&quot;immutable&quot;</code>, and the types <code>file</code>, <code>datetime</code>, <code>embed</code>. Properties not listed are refused. Leave
                empty for no schema (any document is accepted); the greyed example is only a placeholder.
              </>
            }
          />
        )}
        {schemaErrors.length === 0 && parsed.ok && parsed.value && (
          <p className="text-xs text-emerald-700" data-testid="schema-ok">
            Valid schema{schemaColumns(parsed.value).length ? `: ${schemaColumns(parsed.value).join(", ")}` : ""}.
          </p>
        )}
        {parsed.ok && parsed.value && <SchemaProcessors schema={parsed.value} onChange={(next) => setSchemaText(JSON.stringify(next, null, 2))} errors={apiErrors} />}
        <IndexEditor rows={rows} onChange={setRows} serverErrors={serverFor("indexes")} suggestions={parsed.ok && parsed.value ? schemaColumns(parsed.value) : []} />
      </fieldset>
      {error ? (
        <div ref={errorRef} tabIndex={-1} className="outline-none" data-testid="save-error">
          <Alert>{generalError ?? "The server refused the definition: see the messages beside the fields above."}</Alert>
        </div>
      ) : null}
      {!disabled && (
        <div className="flex flex-wrap justify-end gap-2">
          {onCancel && (
            <Button variant="secondary" onClick={onCancel}>
              Cancel
            </Button>
          )}
          <Button type="submit" disabled={!valid || busy}>
            {busy ? "Saving..." : submitLabel}
          </Button>
        </div>
      )}
    </form>
  );
}
