import type { CollectionView } from "./collection";

/**
 * The system collections every project has (CONTRACT §4, §10). Their routes live with their
 * owners (`_tokens` in lib/api/tokens.ts, `_users`/`_notification` with members, `_files` with
 * files, `_usage`/`_debug` in lib/api/usage.ts and debug.ts); the generic documents routes serve
 * only the read-only ones below, empty for now.
 * They cannot be created, changed or deleted through `/api/collections/` (403).
 */
export const SYSTEM_COLLECTIONS = ["_files", "_users", "_notification", "_usage", "_debug", "_tokens", "_hooks", "_hooks_history"] as const;

/** Alternative spellings clients use. */
// Null prototype: looked up with a name from the URL, `__proto__` or `constructor` must miss.
export const SYSTEM_ALIASES: Record<string, string> = Object.assign(Object.create(null), { _notifications: "_notification" });

/** System collections whose documents the generic routes answer, as read-only empty lists. */
export const READ_ONLY_EMPTY = new Set<string>();

export function systemCollectionId(id: string): string | undefined {
  const name = SYSTEM_ALIASES[id] ?? id;
  return (SYSTEM_COLLECTIONS as readonly string[]).includes(name) ? name : undefined;
}

/** A system collection (or its alias): 403 to create, change or delete. Other `_` names are 422 (lib/collections/collection.ts). */
export function isSystemName(id: string): boolean {
  return systemCollectionId(id) !== undefined;
}

/** Display names (CONTRACT §4), found by `filter` and `text` over `/api/collections/`. */
export const SYSTEM_NAMES: Record<(typeof SYSTEM_COLLECTIONS)[number], string> = {
  _files: "Files",
  _users: "Users",
  _notification: "Notifications",
  _usage: "Usage",
  _debug: "Debug",
  _tokens: "Tokens",
  _hooks: "Hooks",
  _hooks_history: "Hooks history",
};

type Schema = Record<string, unknown>;
const string = (extra: Schema = {}): Schema => ({ type: "string", ...extra });
const required = (schema: Schema): Schema => ({ ...schema, required: true });
const datetime: Schema = { type: "datetime" };
const object = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({ type: "object", properties, ...extra });
const open: Schema = { type: "object", additionalProperties: true };
const entries: Schema = {
  type: "array",
  items: {
    anyOf: [
      { type: "string" },
      object({ what: required(string({ enum: ["document", "collection"] })), where: string(), what_id: string() }),
    ],
  },
};

/**
 * What the records of each system collection look like, as JSON Schema (the collections'
 * dialect: `required: true` on a property). Descriptive: these collections are written through
 * their own rules (lib/auth, lib/files, lib/hooks, ...), not validated against these.
 */
export const SYSTEM_SCHEMAS: Record<(typeof SYSTEM_COLLECTIONS)[number], Schema> = {
  _files: object({
    _id: required(string()),
    collection_id: required(string()),
    content_type: required(string()),
    date_created: required(datetime),
    document_id: required(string()),
    last_access: required(datetime),
    md5: required(string()),
    name: required(string()),
    size: required({ type: "integer", minimum: 0 }),
  }),
  _users: object({
    _id: required(string({ format: "email" })),
    is_active: { type: "boolean", required: true },
    role: required(string({ enum: ["owner", "admin", "member"] })),
    // null while the invitation waits: the records as they are, described.
    date_joined: { type: ["datetime", "null"], required: true },
  }),
  _notification: object({ _id: required(string()), author: string(), subject: string(), message: string(), date_sent: required(datetime) }),
  _usage: object({
    _id: required(string()),
    date: required(datetime),
    data_size: required({ type: "integer" }),
    files_size: required({ type: "integer" }),
    requests: required({ type: "integer" }),
    bytes_in: required({ type: "integer" }),
    bytes_out: required({ type: "integer" }),
  }),
  _debug: object({
    _id: required(string()),
    date_created: required(datetime),
    request: object({ method: string(), url: string(), headers: open, body: {} }),
    response: object({ status_code: { type: "integer" }, headers: open, body: {}, time_took: { type: "number" } }),
  }),
  _tokens: object({
    _id: required(string()),
    name: string(),
    is_active: { type: "boolean", required: true },
    permission: object({
      allow: object({ all: { type: "boolean" }, read: entries, write: entries, update: entries, delete: entries }),
    }),
  }),
  _hooks: object({
    _id: required(string()),
    name: string(),
    collection: required(string()),
    conditions: { ...open, type: ["object", "null"] },
    method: string({ enum: ["POST", "PUT", "PATCH", "GET", "DELETE"], default: "POST" }),
    url: required(string({ format: "uri" })),
    headers: object({}, { additionalProperties: { type: "string" } }),
    triggers: { type: "array", items: string({ enum: ["created", "updated", "deleted"] }) },
    request_payload_wrapper: string({ default: "payload" }),
    timeout: object({ read: { type: "number", minimum: 0.01, maximum: 90, default: 5 }, connect: { type: "number", minimum: 0.01, maximum: 90, default: 1 } }),
    retry: object({ strategy: string({ enum: ["exponential", "constant"], default: "exponential" }) }),
    secret: string(),
    is_active: { type: "boolean", default: true },
  }),
  _hooks_history: object({
    id: required(string()),
    hook_id: required(string()),
    trigger: required(string()),
    collection: required(string()),
    document_id: string(),
    // A delivery is listed from the moment it is queued: attempt 0, request and response null
    // (and status "retrying") until its first attempt.
    attempt: required({ type: "integer", minimum: 0 }),
    status: required(string({ enum: ["success", "error", "retrying"] })),
    request: object({ method: string(), url: string(), headers: open, body: string() }, { type: ["object", "null"] }),
    response: object({ status_code: { type: "integer" }, time_took: { type: "number" }, headers: open, body: string() }, { type: ["object", "null"] }),
    error: { type: ["string", "null"] },
    date_created: required(datetime),
  }),
};

export function systemCollectionView(id: string, documentsCount: number): CollectionView {
  const known = id as (typeof SYSTEM_COLLECTIONS)[number];
  return {
    _id: id,
    name: SYSTEM_NAMES[known] ?? id,
    description: "",
    documents_count: documentsCount,
    schema: structuredClone(SYSTEM_SCHEMAS[known] ?? { type: "object", properties: {}, additionalProperties: true }),
    indexes: [],
    is_system: true,
  };
}
