import Ajv from "ajv-draft-04";
import { compileIsolated } from "../documents/ajv-isolation";
import { linearRegExp } from "../query/linear-regexp";
import { schemaTooLarge } from "../documents/schema-size";
import type { ValidateFunction } from "ajv";
import { validationError, type PropertyError } from "../errors";
import { checkPublicUrl } from "../net/outbound-guard";
import { isCredentialHeader } from "../auth/redact-credentials";
import { addDraft4Formats, addLinearUniqueItems, loopsWithoutEnd, MULTIPLE_OF_PRECISION } from "../documents/schema-formats";

/**
 * A hook as `_hooks` shows it (CONTRACT §8), its validation and defaults. Stored whole as the
 * `data` of its row, so what a client wrote (defaults filled) is what it reads back.
 */
export type HookTrigger = "created" | "updated" | "deleted";
export type RetryStrategy = "exponential" | "constant";

export interface Hook {
  _id: string;
  name: string;
  collection: string;
  conditions: Record<string, unknown> | null;
  method: string;
  url: string;
  headers: Record<string, string>;
  triggers: HookTrigger[];
  request_payload_wrapper: string;
  timeout: { read: number; connect: number };
  retry: { strategy: RetryStrategy };
  secret: string;
  is_active: boolean;
}

export const HOOK_TRIGGERS: HookTrigger[] = ["created", "updated", "deleted"];
export const HOOK_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];
const COLLECTION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
// Set by Arca on every delivery; a hook cannot override them.
// The delivery's own, and those the HTTP client manages itself (it refuses `expect`, `upgrade`,
// `keep-alive` and the like on every request: a hook with one could never deliver).
const RESERVED_HEADERS = new Set(["content-type", "content-length", "host", "transfer-encoding", "connection", "expect", "keep-alive", "upgrade", "te", "trailer", "proxy-connection", "x-hook-id", "x-hook-trigger", "x-hook-operation-id", "x-hook-signature", "webhook-id", "webhook-timestamp", "webhook-signature"]);

const defaults = (): Omit<Hook, "_id" | "collection" | "url"> => ({
  name: "",
  conditions: null,
  method: "POST",
  headers: {},
  triggers: [...HOOK_TRIGGERS],
  request_payload_wrapper: "payload",
  timeout: { read: 5, connect: 1 },
  retry: { strategy: "exponential" },
  secret: "",
  is_active: true,
});

/**
 * The hook a write produces: `base` (the stored hook for PATCH, nothing for create/save) with
 * `body`'s keys applied, validated as a whole. 422 naming every bad property.
 */
export async function parseHook(id: string, body: Record<string, unknown>, base?: Hook): Promise<Hook> {
  const errors: PropertyError[] = [];
  const hook = { ...(base ?? defaults()), _id: id } as Hook;
  const input = { ...body };
  if ("condition" in input && !("conditions" in input)) input.conditions = input.condition;
  delete input.condition;
  for (const [key, value] of Object.entries(input)) {
    const fail = (message: string, property = key) => errors.push({ property, message });
    switch (key) {
      case "_id":
        break;
      case "name":
        if (typeof value === "string" && value.length <= 200) hook.name = value;
        else fail("must be a string of at most 200 characters");
        break;
      case "collection":
        // `_files` has change events (records created and deleted, as its feed shows); the
        // other system collections have none a hook could ever receive.
        if (value === "_hooks_history") fail("is not hookable");
        else if (value === "_files" || (typeof value === "string" && COLLECTION_ID.test(value))) hook.collection = value;
        else if (typeof value === "string" && value.startsWith("_")) fail("is not hookable: of the system collections only _files has change events");
        else fail("must be the id of a user collection or _files");
        break;
      case "conditions":
        if (value === null) hook.conditions = null;
        else if (typeof value !== "object" || Array.isArray(value)) fail("must be a JSON Schema object");
        else {
          const problem = schemaProblem(value as Record<string, unknown>);
          if (problem) fail(`is not a valid JSON Schema: ${problem}`);
          else hook.conditions = value as Record<string, unknown>;
        }
        break;
      case "method":
        if (typeof value === "string" && HOOK_METHODS.includes(value.toUpperCase())) hook.method = value.toUpperCase();
        else fail(`must be one of ${HOOK_METHODS.join(", ")}`);
        break;
      case "url":
        if (typeof value === "string" && isHttpUrl(value)) hook.url = value;
        else fail("must be an http or https URL");
        break;
      case "headers":
        if (!value || typeof value !== "object" || Array.isArray(value)) fail("must be an object of header names to strings");
        else {
          const headers: Record<string, string> = {};
          for (const [name, headerValue] of Object.entries(value)) {
            if (!HEADER_NAME.test(name) || RESERVED_HEADERS.has(name.toLowerCase())) fail("is not a header a hook may set", `headers.${name}`);
            else if (typeof headerValue !== "string" || /[\r\n\0]/.test(headerValue)) fail("must be a string on one line", `headers.${name}`);
            // HTTP sends a header value's characters as single bytes: anything past ASCII would
            // reach the receiver as Latin-1 mojibake or, past U+00FF, fail every delivery.
            else if (!PRINTABLE_ASCII.test(headerValue)) fail("must be printable ASCII (HTTP header values are bytes)", `headers.${name}`);
            else headers[name] = headerValue;
          }
          hook.headers = headers;
        }
        break;
      case "triggers":
        if (Array.isArray(value) && value.length > 0 && value.every((t) => HOOK_TRIGGERS.includes(t))) hook.triggers = [...new Set(value as HookTrigger[])];
        else fail(`must be a non-empty array of ${HOOK_TRIGGERS.map((t) => `"${t}"`).join(", ")}`);
        break;
      case "request_payload_wrapper":
        if (typeof value === "string" && value.length <= 100) hook.request_payload_wrapper = value;
        else fail('must be a string ("" sends the bare document)');
        break;
      case "timeout":
        if (!value || typeof value !== "object" || Array.isArray(value)) fail("must be an object {read, connect}");
        else {
          const timeout = { ...hook.timeout };
          for (const [part, seconds] of Object.entries(value)) {
            if (part !== "read" && part !== "connect") fail("is not a timeout", `timeout.${part}`);
            else if (typeof seconds !== "number" || !(seconds >= 0.01 && seconds <= 90)) fail("must be a number of seconds from 0.01 to 90", `timeout.${part}`);
            else timeout[part] = seconds;
          }
          hook.timeout = timeout;
        }
        break;
      case "retry":
        if (!value || typeof value !== "object" || Array.isArray(value)) fail("must be an object {strategy}");
        else
          for (const [part, v] of Object.entries(value)) {
            if (part !== "strategy") fail("is not a retry setting", `retry.${part}`);
            else if (v !== "exponential" && v !== "constant") fail('must be "exponential" or "constant"', "retry.strategy");
            else hook.retry = { strategy: v };
          }
        break;
      case "secret":
        if (value === null) hook.secret = "";
        else if (typeof value !== "string" || value.length > 1024) fail("must be a string of at most 1024 characters");
        else {
          const problem = secretProblem(value);
          if (problem) fail(problem);
          else hook.secret = value;
        }
        break;
      case "is_active":
        if (typeof value === "boolean") hook.is_active = value;
        else fail("must be a boolean");
        break;
      default:
        fail("is not a hook property");
    }
  }
  if (!hook.collection && !errors.some((e) => e.property === "collection")) errors.push({ property: "collection", message: "is required" });
  if (!hook.url && !errors.some((e) => e.property === "url")) errors.push({ property: "url", message: "is required" });
  if (hook.url && !errors.some((e) => e.property === "url") && (await resolvesPrivate(new URL(hook.url)))) {
    errors.push({ property: "url", message: "must not point to a loopback, private or link-local address" });
  }
  if (errors.length) throw validationError("Validation error", errors);
  return hook;
}

/**
 * Whether the URL's host is, or resolves to, an address hooks may not reach (CONTRACT §8). A
 * name that does not resolve now (no DNS on this machine, a receiver not yet deployed), or not
 * within SAVE_LOOKUP_MS, is accepted: every delivery resolves it again through the same guard,
 * which refuses private addresses then.
 */
async function resolvesPrivate(url: URL): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), SAVE_LOOKUP_MS)));
  try {
    await Promise.race([checkPublicUrl(url), timedOut]);
    return false;
  } catch (error) {
    return (error as { code?: string }).code === "EPRIVATEADDRESS";
  } finally {
    clearTimeout(timer);
  }
}

const SAVE_LOOKUP_MS = 2_000;

const PRINTABLE_ASCII = /^[\t\x20-\x7e]*$/;
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A secret receivers can verify with the Standard Webhooks libraries (CONTRACT §8): `whsec_` and
 * the key in standard base64 (an empty or loosely decoded key would sign with bytes no library
 * derives; `whsec_` alone is an empty key anyone could sign with), or printable ASCII used as
 * its bytes (the libraries' "raw" format reads a string one character per byte).
 */
function secretProblem(secret: string): string | undefined {
  if (secret.startsWith("whsec_")) {
    const key = secret.slice("whsec_".length);
    return key !== "" && STRICT_BASE64.test(key) ? undefined : "must be whsec_ followed by a non-empty base64 key";
  }
  return /^[\x20-\x7e]*$/.test(secret) ? undefined : "must be printable ASCII, or whsec_ followed by a base64 key";
}

function isHttpUrl(text: string): boolean {
  if (text.length > 2048) return false;
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "" && url.username === "" && url.password === "";
  } catch {
    return false;
  }
}

const conditionsAjv = new Ajv({ allErrors: false, strict: false, validateSchema: true, multipleOfPrecision: MULTIPLE_OF_PRECISION, code: { regExp: linearRegExp } });
addDraft4Formats(conditionsAjv);
addLinearUniqueItems(conditionsAjv);
const compiled = new Map<string, ValidateFunction>();

function schemaProblem(schema: Record<string, unknown>): string | undefined {
  const tooLarge = schemaTooLarge(schema);
  if (tooLarge) return tooLarge;
  try {
    conditionsFor(schema);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The compiled `conditions` (cached by their text; standard JSON Schema draft 4 semantics). */
export function conditionsFor(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = compileIsolated(conditionsAjv, schema) as unknown as ValidateFunction;
    // `$async: true` makes ajv answer a promise, which rejects for a document that fails: a
    // truthy answer for every document, and a rejection nobody awaits, which stopped the thread.
    if ((validate as { $async?: unknown }).$async) throw new Error("$async schemas are not supported: conditions are checked synchronously");
    // Such a hook would never fire (its check overflows the stack on every document).
    if (loopsWithoutEnd(validate)) throw new Error("the conditions refer to themselves without end (a $ref loop that reads no deeper into the document)");
    if (compiled.size > 5000) compiled.clear();
    compiled.set(key, validate);
  }
  return validate;
}

/** Whether the hook fires for this document (its conditions, if any, match). */
export function matchesConditions(hook: Pick<Hook, "conditions">, document: unknown): boolean {
  if (!hook.conditions) return true;
  try {
    return conditionsFor(hook.conditions)(document) === true;
  } catch {
    return false;
  }
}

/** The hook as a reader sees it: the secret only for those who may manage hooks. */
export function hookView(hook: Hook, showSecret: boolean): Hook {
  if (showSecret) return hook;
  // Readers who may not manage hooks see neither the signing secret nor credentials in headers.
  const headers = Object.fromEntries(Object.entries(hook.headers).map(([name, value]) => [name, isCredentialHeader(name) ? "********" : value]));
  return { ...hook, secret: hook.secret ? "********" : "", headers };
}
