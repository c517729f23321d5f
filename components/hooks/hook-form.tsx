"use client";

import { useState } from "react";
import { ApiError, describeError } from "@/lib/client/api";
import { checkDraft, draftFromHook, hookInput, placeServerErrors, unchangedOnly, type HookDraft } from "@/lib/client/hook-form";
import { useCollectionNames } from "@/lib/client/hooks";
import { HOOK_METHODS, HOOK_TRIGGERS, type Hook, type HookInput, type HookMethod, type RetryStrategy } from "@/lib/client/webhooks";
import { Alert, Button, JsonField, SelectField, TextField } from "@/components/ui";
import { HeadersEditor } from "./headers-editor";
import { HookSecretField } from "./hook-secret-field";

const TRIGGER_HELP: Record<string, string> = {
  created: "POST, PUT of a new id, upsert inserts, uploads creating a document",
  updated: "PUT, PATCH, property writes, update actions, file changes",
  deleted: "DELETE and delete by criteria (sent as the document was)",
};

/**
 * Create or edit a hook: every property of CONTRACT §8. Checked as you type where the browser can
 * (URL, JSON of the conditions, timeouts, header names); the API's 422 goes beside the field it
 * names (a conditions schema the server's ajv refuses, a private address, a reserved header).
 */
export function HookForm({
  projectId,
  initial,
  busy,
  error,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  projectId: string;
  initial?: Hook;
  busy: boolean;
  error: unknown;
  submitLabel: string;
  /** `opened`: an edit's form as it was opened (see `changedInput`). */
  onSubmit: (input: HookInput, opened?: HookInput) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<HookDraft>(() => draftFromHook(initial));
  const [opened] = useState(() => (initial ? hookInput(draftFromHook(initial)) : undefined));
  const [submitted, setSubmitted] = useState(false);
  // What the last submit sent: the API's errors are about it, so each shows until its field changes.
  const [sent, setSent] = useState<HookDraft | undefined>();
  const collections = useCollectionNames(projectId);
  const set = <K extends keyof HookDraft>(key: K, value: HookDraft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  const checks = checkDraft(draft);
  // Before the first submit, only what has been typed is judged (no "required" on an empty form).
  const typed = (field: string) =>
    submitted ||
    (field === "url" && draft.url.trim() !== "") ||
    field === "conditions" ||
    field.startsWith("timeout.") ||
    field.startsWith("headerRow.");
  const clientError = (field: string) => (typed(field) ? checks[field] : undefined);
  const placed = error instanceof ApiError && error.status === 422 ? placeServerErrors(error.errors, sent ?? draft) : { byField: {}, general: [] as string[] };
  const server = { ...placed, byField: sent ? unchangedOnly(placed.byField, sent, draft) : placed.byField };
  const fieldError = (field: string) => clientError(field) ?? server.byField[field];
  const invalid = error instanceof ApiError && error.status === 422;
  const generalError = invalid
    ? server.general.length || error.errors.length === 0
      ? [error.message, ...server.general].join(": ")
      : undefined
    : error
      ? describeError(error)
      : undefined;

  // User collections, and `_files`: the only system collection with changes to deliver.
  const userCollections = (collections.data?.names ?? []).filter((name) => !name.startsWith("_") || name === "_files");
  if (draft.collection && !userCollections.includes(draft.collection)) userCollections.unshift(draft.collection);
  const headerErrors: Record<number, string> = {};
  draft.headers.forEach((_, index) => {
    const message = fieldError(`headerRow.${index}`);
    if (message) headerErrors[index] = message;
  });

  function submit(event: React.FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (Object.keys(checks).length) return;
    setSent(draft);
    onSubmit(hookInput(draft), opened);
  }

  return (
    // method="post": should the form ever submit before the page is interactive, the secret goes in a body, not the URL.
    <form method="post" onSubmit={submit} noValidate aria-label={initial ? "Edit hook" : "New hook"} className="space-y-5">
      {generalError && <Alert>{generalError}</Alert>}
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField label="Name" name="hook-name" maxLength={200} value={draft.name} onChange={(e) => set("name", e.target.value)} error={fieldError("name")} hint="For you: shown in the list." />
        {collections.data && !collections.data.available ? (
          <TextField label="Collection" name="hook-collection" required value={draft.collection} onChange={(e) => set("collection", e.target.value.trim())} error={fieldError("collection")} />
        ) : (
          <div>
            <SelectField label="Collection" name="hook-collection" required value={draft.collection} onChange={(e) => set("collection", e.target.value)} aria-invalid={fieldError("collection") ? true : undefined}>
              <option value="">{collections.isPending ? "Loading collections..." : userCollections.length ? "Choose a collection" : "No collections yet"}</option>
              {userCollections.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </SelectField>
            {fieldError("collection") && <p className="mt-1 text-xs text-red-600">{fieldError("collection")}</p>}
          </div>
        )}
        <TextField
          label="URL"
          name="hook-url"
          type="url"
          required
          className="sm:col-span-2"
          placeholder="https://example.com/arca-hook"
          value={draft.url}
          onChange={(e) => set("url", e.target.value)}
          error={fieldError("url")}
          hint="Where deliveries go. Private and loopback addresses are refused unless the server allows them."
        />
        <SelectField label="Method" name="hook-method" value={draft.method} onChange={(e) => set("method", e.target.value as HookMethod)} hint="GET and DELETE send no body.">
          {HOOK_METHODS.map((method) => (
            <option key={method}>{method}</option>
          ))}
        </SelectField>
        <TextField
          label="Payload wrapper"
          name="hook-wrapper"
          value={draft.wrapper}
          maxLength={100}
          onChange={(e) => set("wrapper", e.target.value)}
          error={fieldError("request_payload_wrapper")}
          hint={draft.wrapper ? `Body: {"${draft.wrapper}": <document>}` : "Empty: the body is the bare document."}
        />
      </div>

      <fieldset aria-describedby={fieldError("triggers") ? "hook-triggers-error" : undefined}>
        <legend className="text-sm font-medium text-slate-700">Triggers</legend>
        <div className="mt-1 grid gap-2 sm:grid-cols-3">
          {HOOK_TRIGGERS.map((trigger) => (
            <label key={trigger} className="flex items-start gap-2 rounded-md border border-slate-200 p-2 text-sm">
              <input
                type="checkbox"
                className="mt-0.5 h-4 w-4 accent-indigo-600"
                checked={draft.triggers.includes(trigger)}
                onChange={(e) => set("triggers", e.target.checked ? [...draft.triggers, trigger] : draft.triggers.filter((t) => t !== trigger))}
              />
              <span>
                <span className="font-medium text-slate-800">{trigger}</span>
                <span className="block text-xs text-slate-500">{TRIGGER_HELP[trigger]}</span>
              </span>
            </label>
          ))}
        </div>
        {fieldError("triggers") && (
          <p id="hook-triggers-error" className="mt-1 text-xs text-red-600">
            {fieldError("triggers")}
          </p>
        )}
      </fieldset>

      <JsonField
        label="Conditions (JSON Schema)"
        name="hook-conditions"
        rows={6}
        value={draft.conditions}
        onChange={(text) => set("conditions", text)}
        errors={[clientError("conditions"), server.byField.conditions && `Server: ${server.byField.conditions}`].filter((e): e is string => !!e)}
        hint={
          <>
            A JSON Schema (draft 4) the document must match, e.g. <code>{'{"properties": {"total": {"minimum": 100}}}'}</code>. Empty: every document.
          </>
        }
      />

      <HeadersEditor rows={draft.headers} onChange={(rows) => set("headers", rows)} errors={headerErrors} generalError={server.byField.headers} />

      <div className="grid gap-4 sm:grid-cols-3">
        <TextField
          label="Read timeout (s)"
          name="hook-timeout-read"
          type="number"
          inputMode="decimal"
          min={0.01}
          max={90}
          step="any"
          value={draft.readTimeout}
          onChange={(e) => set("readTimeout", e.target.value)}
          error={fieldError("timeout.read") ?? fieldError("timeout")}
        />
        <TextField
          label="Connect timeout (s)"
          name="hook-timeout-connect"
          type="number"
          inputMode="decimal"
          min={0.01}
          max={90}
          step="any"
          value={draft.connectTimeout}
          onChange={(e) => set("connectTimeout", e.target.value)}
          error={fieldError("timeout.connect")}
        />
        <SelectField
          label="Retry strategy"
          name="hook-retry"
          value={draft.retry}
          onChange={(e) => set("retry", e.target.value as RetryStrategy)}
          hint={draft.retry === "exponential" ? "2, 4, 8, 16 ... s; at most 10 attempts." : "Every 2 s; at most 10 attempts."}
        >
          <option value="exponential">Exponential</option>
          <option value="constant">Constant</option>
        </SelectField>
      </div>
      {(fieldError("retry.strategy") ?? fieldError("retry")) && <p className="text-xs text-red-600">{fieldError("retry.strategy") ?? fieldError("retry")}</p>}

      <HookSecretField value={draft.secret} onChange={(secret) => set("secret", secret)} error={fieldError("secret")} />

      <label className="flex items-center gap-3 text-sm font-medium text-slate-700">
        <input type="checkbox" role="switch" className="h-5 w-5 accent-indigo-600" checked={draft.isActive} onChange={(e) => set("isActive", e.target.checked)} />
        Active
        <span className="text-xs font-normal text-slate-500">An inactive hook gets no deliveries; queued ones wait until it is active again.</span>
      </label>

      <div className="flex flex-wrap justify-end gap-2">
        <Button variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" disabled={busy}>
          {busy ? "Saving..." : submitLabel}
        </Button>
      </div>
    </form>
  );
}
