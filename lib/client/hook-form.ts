import type { PropertyError } from "./api";
import { deepEqual, parseJsonObject } from "./json-editing";
import { HOOK_TRIGGERS, type Hook, type HookInput, type HookMethod, type HookTrigger, type RetryStrategy } from "./webhooks";

/**
 * The hook form's state and its pure rules: a draft from a hook (or the defaults), the checks made
 * as you type, the input sent to the API, the API's 422 errors sorted by field, a new secret.
 * The server has the last word (it also checks the conditions as a JSON Schema and the URL's address).
 */
export interface HeaderRow {
  /** Stable React key; not sent. */
  key: number;
  name: string;
  value: string;
}

export interface HookDraft {
  name: string;
  collection: string;
  url: string;
  method: HookMethod;
  triggers: HookTrigger[];
  conditions: string;
  headers: HeaderRow[];
  readTimeout: string;
  connectTimeout: string;
  retry: RetryStrategy;
  wrapper: string;
  secret: string;
  isActive: boolean;
}

let rowKey = 0;
export const headerRow = (name = "", value = ""): HeaderRow => ({ key: ++rowKey, name, value });

export function draftFromHook(hook?: Hook): HookDraft {
  return {
    name: hook?.name ?? "",
    collection: hook?.collection ?? "",
    url: hook?.url ?? "",
    method: hook?.method ?? "POST",
    triggers: hook ? [...hook.triggers] : [...HOOK_TRIGGERS],
    conditions: hook?.conditions ? JSON.stringify(hook.conditions, null, 2) : "",
    headers: hook ? Object.entries(hook.headers).map(([name, value]) => headerRow(name, value)) : [],
    readTimeout: String(hook?.timeout.read ?? 5),
    connectTimeout: String(hook?.timeout.connect ?? 1),
    retry: hook?.retry.strategy ?? "exponential",
    wrapper: hook?.request_payload_wrapper ?? "payload",
    secret: hook?.secret ?? "",
    isActive: hook?.is_active ?? true,
  };
}

/** Field -> message, for the checks the browser can make; the keys are the API's property names. */
export type DraftErrors = Partial<Record<string, string>>;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;

export function checkDraft(draft: HookDraft): DraftErrors {
  const errors: DraftErrors = {};
  if (!draft.collection.trim()) errors.collection = "Choose the collection whose changes are sent.";
  const url = draft.url.trim();
  if (!url) errors.url = "The receiver's URL is required.";
  else if (!isHttpUrl(url)) errors.url = "Must be an http:// or https:// URL.";
  if (draft.triggers.length === 0) errors.triggers = "Choose at least one trigger.";
  if (draft.conditions.trim()) {
    const parsed = parseJsonObject(draft.conditions, "Conditions");
    if (!parsed.ok) errors.conditions = parsed.error;
  }
  for (const [part, text] of [["read", draft.readTimeout], ["connect", draft.connectTimeout]] as const) {
    const seconds = Number(text);
    if (text.trim() === "" || !Number.isFinite(seconds) || seconds < 0.01 || seconds > 90) errors[`timeout.${part}`] = "Seconds from 0.01 to 90.";
  }
  const seen = new Set<string>();
  draft.headers.forEach((row, index) => {
    const name = row.name.trim();
    if (!name && !row.value) return; // an empty row is ignored
    if (!HEADER_NAME.test(name)) errors[`headerRow.${index}`] = "Not a valid header name.";
    else if (seen.has(name.toLowerCase())) errors[`headerRow.${index}`] = "This header is already set above.";
    else if (/[\r\n\0]/.test(row.value)) errors[`headerRow.${index}`] = "The value must be on one line.";
    seen.add(name.toLowerCase());
  });
  return errors;
}

/** What the API is sent: every property, so create and edit say the same thing. */
export function hookInput(draft: HookDraft): HookInput {
  const headers: Record<string, string> = {};
  for (const row of draft.headers) if (row.name.trim()) headers[row.name.trim()] = row.value;
  const conditions = draft.conditions.trim() ? parseJsonObject(draft.conditions, "Conditions") : undefined;
  return {
    name: draft.name.trim(),
    collection: draft.collection.trim(),
    url: draft.url.trim(),
    method: draft.method,
    triggers: HOOK_TRIGGERS.filter((t) => draft.triggers.includes(t)),
    conditions: conditions?.ok ? conditions.value : null,
    headers,
    timeout: { read: Number(draft.readTimeout), connect: Number(draft.connectTimeout) },
    retry: { strategy: draft.retry },
    request_payload_wrapper: draft.wrapper,
    secret: draft.secret,
    is_active: draft.isActive,
  };
}

/**
 * An edit's PATCH: the top-level properties that differ from what the form was opened with. The
 * hook may have been changed elsewhere since (deactivated, re-pointed); sending what the user did
 * not touch would undo that.
 */
export function changedInput(opened: HookInput, edited: HookInput): Partial<HookInput> {
  return Object.fromEntries(Object.entries(edited).filter(([key, value]) => !deepEqual(opened[key as keyof HookInput], value))) as Partial<HookInput>;
}

/**
 * The API's 422 errors placed on the form: by property (`url`, `timeout.read`, `retry.strategy`),
 * header errors (`headers.<name>`) on the row holding that name; what fits nowhere is `general`.
 */
export function placeServerErrors(errors: PropertyError[], draft: HookDraft): { byField: DraftErrors; general: string[] } {
  const byField: DraftErrors = {};
  const general: string[] = [];
  const fields = new Set(["name", "collection", "url", "method", "triggers", "conditions", "headers", "timeout", "timeout.read", "timeout.connect", "retry", "retry.strategy", "request_payload_wrapper", "secret", "is_active"]);
  for (const error of errors) {
    const property = error.property === "condition" ? "conditions" : error.property;
    let field: string | undefined;
    if (property?.startsWith("headers.")) {
      const name = property.slice("headers.".length);
      const index = draft.headers.findIndex((row) => row.name.trim() === name);
      field = index >= 0 ? `headerRow.${index}` : "headers";
    } else if (property && fields.has(property)) field = property;
    if (field) byField[field] = byField[field] ? `${byField[field]} ${error.message}` : error.message;
    else general.push(property ? `${property}: ${error.message}` : error.message);
  }
  return { byField, general };
}

/** The draft's part each error field is about (header rows by their stable key). */
function fieldValue(draft: HookDraft, field: string): unknown {
  switch (field) {
    case "timeout":
      return [draft.readTimeout, draft.connectTimeout];
    case "timeout.read":
      return draft.readTimeout;
    case "timeout.connect":
      return draft.connectTimeout;
    case "retry":
    case "retry.strategy":
      return draft.retry;
    case "request_payload_wrapper":
      return draft.wrapper;
    case "is_active":
      return draft.isActive;
    case "headers":
      return draft.headers.map((row) => [row.name, row.value]);
    default:
      return (draft as unknown as Record<string, unknown>)[field];
  }
}

/**
 * The server's errors about `sent` that still hold for `current`: those whose field was not
 * changed since. A header row's error follows the row (by key) while it keeps its name.
 */
export function unchangedOnly(byField: DraftErrors, sent: HookDraft, current: HookDraft): DraftErrors {
  const kept: DraftErrors = {};
  for (const [field, message] of Object.entries(byField)) {
    if (field.startsWith("headerRow.")) {
      const row = sent.headers[Number(field.slice("headerRow.".length))];
      const index = current.headers.findIndex((r) => r.key === row?.key && r.name.trim() === row.name.trim());
      if (index >= 0) kept[`headerRow.${index}`] = message;
    } else if (JSON.stringify(fieldValue(sent, field)) === JSON.stringify(fieldValue(current, field))) kept[field] = message;
  }
  return kept;
}

/**
 * A new signing secret: `whsec_` + base64 of 24 random bytes, the Standard Webhooks form (Arca
 * keys `webhook-signature` with those bytes, so that specification's libraries take the secret as
 * it is; `X-Hook-Signature` is keyed with the secret's text, docs/hooks.md).
 */
export function generateSecret(fill: (bytes: Uint8Array) => Uint8Array = (bytes) => crypto.getRandomValues(bytes)): string {
  const bytes = fill(new Uint8Array(24));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `whsec_${btoa(binary)}`;
}

/** "12.3 ms", "1.2 s" for a delivery's `time_took` (milliseconds). */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "-";
  if (ms < 1000) return `${Number(ms.toFixed(ms < 10 ? 1 : 0))} ms`;
  return `${Number((ms / 1000).toFixed(ms < 10_000 ? 2 : 1))} s`;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}
