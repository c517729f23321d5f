import { isCredentialHeader, REDACTED, redactHeader, redactUrl, tokenPathSegment } from "../auth/redact-credentials";
import { generateId } from "../auth/secrets";
import { pool } from "../db/pool";
import { query, type Queryable } from "../db/query";
import { sql } from "../db/sql";
import { notFound } from "../errors";
import { formatFileDate } from "../files/file-record";
import { SECRET_ARGUMENTS } from "../processors/processor-secrets";
import { setOwn } from "../query/json-input";

/**
 * The `_debug` log (CONTRACT §10): the API calls of a project while its `settings.debug` is on.
 * Calls are queued in memory and written in batches by the flusher (never on the request path);
 * each flush keeps only the newest `KEEP_PER_PROJECT` records of the projects it wrote.
 */
export interface DebugRecord {
  [key: string]: unknown;
  _id: string;
  date_created: string;
  request: { method: string; url: string; headers: Record<string, string>; body: unknown; body_truncated?: boolean };
  response: { status_code: number; headers: Record<string, string>; body: unknown; body_truncated?: boolean; time_took: number };
}

export const KEEP_PER_PROJECT = 1000;
/** Bodies are kept only when JSON and at most this long; longer ones are cut (and flagged). */
export const BODY_LIMIT = 16 * 1024;
/** If the database is away, the queue stops growing here (the oldest calls are dropped). */
const QUEUE_LIMIT = 10_000;

interface Pending {
  projectId: string;
  record: DebugRecord;
  dateCreated: Date;
}

const state = ((globalThis as { __arcaDebugLog?: { queue: Pending[]; dropped: number } }).__arcaDebugLog ??= { queue: [], dropped: 0 });

export interface DebugCall {
  method: string;
  url: string;
  requestHeaders: Headers;
  requestBody: string | undefined;
  statusCode: number;
  responseHeaders: Headers;
  responseBody: string | undefined;
  started: number;
  timeTook: number;
}

/** Queues one call of `projectId`; redacts credentials. Never throws, never waits. */
export function enqueueDebugCall(projectId: string, call: DebugCall): void {
  const dateCreated = new Date(call.started);
  const request = { method: call.method, url: redactUrl(call.url), headers: redactHeaders(call.requestHeaders), ...debugBody(call.requestBody) };
  const response = { status_code: call.statusCode, headers: redactHeaders(call.responseHeaders), ...debugBody(call.responseBody), time_took: call.timeTook };
  // A token created through `_tokens` shows its secret once, in the answer: not in `_debug`.
  const path = new URL(call.url, "http://x").pathname;
  if (/\/_tokens(\/|$)/.test(path)) redactTokenSecrets(response, tokenPathSegment(path));
  // A hook's signing secret, sent and answered in clear to those who manage hooks.
  if (/\/_hooks(\/|$)/.test(path)) for (const recorded of [request, response]) redactHookSecrets(recorded);
  // Processors' literal vendor keys in collection definitions: members read `_debug`, and the
  // definition routes show them those keys masked.
  if (/^\/api\/collections(\/|$)/.test(path) && !/\/documents(\/|$)/.test(path)) for (const recorded of [request, response]) redactProcessorSecrets(recorded, path);
  state.queue.push({ projectId, dateCreated, record: { _id: generateId(), date_created: formatFileDate(dateCreated), request, response } });
  if (state.queue.length > QUEUE_LIMIT) {
    state.queue.splice(0, state.queue.length - QUEUE_LIMIT);
    if (state.dropped++ === 0) console.error("debug: queue full, dropping the oldest calls");
  }
}

/** Writes the queued calls in one statement, then prunes each written project to its newest records. */
export async function flushDebugLog(db: Queryable = pool()): Promise<number> {
  if (state.queue.length === 0) return 0;
  const batch = state.queue;
  state.queue = [];
  state.dropped = 0;
  const projects = [...new Set(batch.map((p) => p.projectId))];
  // Projects deleted since their calls were queued are skipped by the join. On failure the
  // batch goes back to the queue (bounded) for the next flush.
  await insertRecords(batch, db).catch((error) => {
    state.queue = batch.concat(state.queue).slice(-QUEUE_LIMIT);
    throw error;
  });
  await query(
    sql`DELETE FROM debug_records d USING (
          SELECT project_id, id, row_number() OVER (PARTITION BY project_id ORDER BY date_created DESC, id DESC) AS n
          FROM debug_records WHERE project_id = ANY(${projects}::text[])
        ) r
        WHERE d.project_id = r.project_id AND d.id = r.id AND r.n > ${KEEP_PER_PROJECT}`,
    db,
  );
  return batch.length;
}

function insertRecords(batch: Pending[], db: Queryable) {
  return query(
    sql`INSERT INTO debug_records (project_id, id, date_created, record)
        SELECT b.project_id, b.id, b.date_created, b.record
        FROM unnest(${batch.map((p) => p.projectId)}::text[], ${batch.map((p) => p.record._id)}::text[],
                    ${batch.map((p) => p.dateCreated.toISOString())}::timestamptz[], ${batch.map((p) => JSON.stringify(p.record))}::jsonb[])
             AS b (project_id, id, date_created, record)
        JOIN projects p ON p.id = b.project_id
        ON CONFLICT DO NOTHING`,
    db,
  );
}

/** The project's records, newest first (at most KEEP_PER_PROJECT: listed in memory). */
export async function listDebugRecords(projectId: string): Promise<DebugRecord[]> {
  const rows = await query<{ record: DebugRecord }>(
    sql`SELECT record FROM debug_records WHERE project_id = ${projectId} ORDER BY date_created DESC, id DESC`,
  );
  return rows.map((r) => r.record);
}

export async function getDebugRecord(projectId: string, id: string): Promise<DebugRecord> {
  const rows = await query<{ record: DebugRecord }>(sql`SELECT record FROM debug_records WHERE project_id = ${projectId} AND id = ${id}`);
  if (!rows[0]) throw notFound("Document not found.");
  return rows[0].record;
}

/** Credentials in every form (Authorization, cookies, `?token=` decoded), lib/auth/redact-credentials.ts. */
function redactHeaders(headers: Headers): Record<string, string> {
  const result: Record<string, string> = {};
  headers.forEach((value, name) => {
    result[name] = redactHeader(name, value);
  });
  return result;
}

function redactHookSecrets(recorded: { body?: unknown }): void {
  const redact = (value: unknown) => {
    if (!value || typeof value !== "object" || Array.isArray(value)) return;
    const hook = value as Record<string, unknown>;
    if (typeof hook.secret === "string") hook.secret = REDACTED;
    // Credentials the owner put in the hook's headers (`Authorization: Bearer ...`) likewise.
    if (hook.headers && typeof hook.headers === "object" && !Array.isArray(hook.headers))
      for (const name of Object.keys(hook.headers)) if (isCredentialHeader(name)) (hook.headers as Record<string, unknown>)[name] = REDACTED;
  };
  if (typeof recorded.body === "string") recorded.body = recorded.body.replace(/("secret"\s*:\s*")(?:[^"\\]|\\.)*"/g, `$1${REDACTED}"`);
  else {
    redact(recorded.body);
    redact((recorded.body as { payload?: unknown } | null)?.payload);
    const items = (recorded.body as { items?: unknown } | null)?.items;
    if (Array.isArray(items)) items.forEach(redact);
  }
}

/**
 * A definition's processor credentials as `withProcessorSecretsMasked` shows them; a path that
 * reaches into one (`.../in/api_key/`) keeps no body at all; a cut body has them blanked by name.
 */
function redactProcessorSecrets(recorded: { body?: unknown }, path: string): void {
  if (recorded.body === null || recorded.body === undefined) return;
  if (/\/processors\/.*\/(api_key|subscription_key|language_token)(\/|$)/.test(path)) recorded.body = REDACTED;
  else if (typeof recorded.body === "string")
    recorded.body = recorded.body.replace(/("(?:api_key|subscription_key|language_token)"\s*:\s*)\{[^}]*\}?/g, `$1{"value":"${REDACTED}"}`);
  else recorded.body = maskSecretArguments(recorded.body);
}

/** Every `{"api_key": {"value": ...}}` at any depth: a body may be a processor, its `in` or a list of them. */
function maskSecretArguments(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecretArguments);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const literal = item && typeof item === "object" && !Array.isArray(item) && "value" in item;
    setOwn(out, key, SECRET_ARGUMENTS.has(key) && literal ? { ...(item as object), value: REDACTED } : maskSecretArguments(item));
  }
  return out;
}

/** The secret shown once at creation, and one the path addressed (the answer's `_id` is the path's). */
function redactTokenSecrets(response: { body: unknown }, pathSecret: string | undefined): void {
  let addressed: string | undefined;
  try {
    addressed = pathSecret === undefined ? undefined : decodeURIComponent(pathSecret);
  } catch {
    addressed = pathSecret;
  }
  const redact = (value: unknown) => {
    if (!value || typeof value !== "object" || Array.isArray(value)) return;
    const record = value as Record<string, unknown>;
    if ("token" in record) record.token = REDACTED;
    if (addressed !== undefined && record._id === addressed) record._id = REDACTED;
  };
  if (Array.isArray(response.body)) response.body.forEach(redact);
  else if (typeof response.body === "string") {
    response.body = response.body.replace(/("token"\s*:\s*")[^"]*"/g, `$1${REDACTED}"`);
    if (addressed) response.body = (response.body as string).split(addressed).join(REDACTED);
  }
  else {
    redact(response.body);
    const items = (response.body as { items?: unknown } | null)?.items;
    if (Array.isArray(items)) items.forEach(redact);
  }
}

/**
 * A body as recorded: the JSON value when it parses and fits, the first BODY_LIMIT characters
 * (a string, flagged `body_truncated`) when it is longer, null otherwise or when absent.
 */
function debugBody(text: string | undefined): { body: unknown; body_truncated?: boolean } {
  if (text === undefined || text === "") return { body: null };
  if (text.length > BODY_LIMIT) return { body: text.slice(0, BODY_LIMIT), body_truncated: true };
  try {
    return { body: JSON.parse(text) };
  } catch {
    return { body: null };
  }
}
