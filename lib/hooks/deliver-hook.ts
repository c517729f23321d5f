import { request } from "undici";
import { assertHostAllowed, outboundDispatcher } from "../net/outbound-guard";
import type { Hook } from "./hook";
import { hookSignatureHeaders } from "./hook-signature";
import { isCredentialHeader, REDACTED } from "../auth/redact-credentials";

/**
 * One attempt at one delivery (CONTRACT §8): the hook's method, URL and headers, Arca's headers
 * and signatures, the document under the wrapper; redirects followed (at most 5) with method and
 * body unchanged, every hop through the SSRF guard, the hook's credential headers dropped once a
 * redirect leaves its origin; connect and read timeouts as the hook says,
 * with an overall bound so a receiver that accepts and never answers cannot hold a worker.
 */
export interface DeliveryInput {
  operationId: string;
  trigger: string;
  document: unknown;
}

export interface AttemptRecord {
  ok: boolean;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  response: { status_code: number; time_took: number; headers: Record<string, string>; body: string } | null;
  error: string | null;
  /** Seconds the receiver asked us to wait (Retry-After), capped at an hour. */
  retryAfter?: number;
}

const SUCCESS = new Set([200, 201, 202, 204]);
const RECORDED_BODY = 4096;
const MAX_REDIRECTS = 5;
const MAX_RETRY_AFTER = 3600;

const ARCA_SETS = new Set(["user-agent", "content-type"]);

export async function deliverHook(hook: Hook, input: DeliveryInput): Promise<AttemptRecord> {
  const method = hook.method;
  const body = method === "GET" || method === "DELETE" ? "" : JSON.stringify(hook.request_payload_wrapper ? { [hook.request_payload_wrapper]: input.document } : input.document);
  // The hook's headers as its owner spelled them, less any Arca sets itself (`User-Agent`,
  // `Content-Type`, in any case): those are Arca's, never sent twice.
  const headers: Record<string, string> = {
    ...Object.fromEntries(Object.entries(hook.headers).filter(([name]) => !ARCA_SETS.has(name.toLowerCase()))),
    "user-agent": "Arca-Hooks/1.0",
    "x-hook-id": hook._id,
    "x-hook-trigger": input.trigger,
    "x-hook-operation-id": input.operationId,
    ...hookSignatureHeaders(hook.secret, input.operationId, body),
  };
  if (body) headers["content-type"] = "application/json";
  const recordedRequest = { method, url: hook.url, headers: redact(headers), body: truncate(body) };
  const readMs = Math.round(hook.timeout.read * 1000);
  const connectMs = Math.round(hook.timeout.connect * 1000);
  const started = performance.now();
  let url = new URL(hook.url);
  const origin = url.origin;
  try {
    for (let hop = 0; ; hop++) {
      assertHostAllowed(url);
      const response = await request(url, {
        method: method as "POST",
        headers,
        body: body || undefined,
        dispatcher: outboundDispatcher(connectMs),
        headersTimeout: readMs,
        bodyTimeout: readMs,
        signal: AbortSignal.timeout(connectMs + readMs),
      });
      const location = response.headers.location;
      if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === "string" && hop < MAX_REDIRECTS) {
        await response.body.dump({ limit: 64 * 1024 }).catch(() => {});
        url = new URL(location, url);
        if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`redirect to ${url.protocol} refused`);
        // Leaving the hook's origin, its own credentials stay behind (as browsers drop
        // Authorization): they were given for the URL the owner configured. Arca's signatures go on.
        if (url.origin !== origin) for (const name of Object.keys(hook.headers)) if (isCredentialHeader(name)) delete headers[name];
        continue;
      }
      const text = await readSome(response.body, RECORDED_BODY);
      const responseHeaders = flatHeaders(response.headers);
      const ok = SUCCESS.has(response.statusCode);
      return {
        ok,
        request: { ...recordedRequest, url: url.toString() },
        response: { status_code: response.statusCode, time_took: elapsed(started), headers: redact(responseHeaders), body: text },
        error: ok ? null : `Receiver answered ${response.statusCode}`,
        retryAfter: ok ? undefined : retryAfterSeconds(responseHeaders["retry-after"]),
      };
    }
  } catch (error) {
    return { ok: false, request: { ...recordedRequest, url: url.toString() }, response: null, error: describe(error, hook) };
  }
}

async function readSome(body: AsyncIterable<Buffer> & { dump(options?: { limit: number }): Promise<void> }, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) break;
  }
  // The rest is not recorded; drain a little for keep-alive, drop the connection past that.
  await body.dump({ limit: 64 * 1024 }).catch(() => {});
  return Buffer.concat(chunks).subarray(0, limit).toString("utf8");
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  return out;
}

function redact(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = isCredentialHeader(name) ? REDACTED : value;
  return out;
}

/** The first 4 KiB (bytes, as the response's body is kept; a character cut in two is dropped). */
function truncate(text: string): string {
  const bytes = Buffer.from(text);
  return bytes.length > RECORDED_BODY ? bytes.subarray(0, RECORDED_BODY).toString("utf8").replace(/\uFFFD$/, "") : text;
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

/** `Retry-After` as seconds (a number or an HTTP date), at most an hour. */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = /^\d+$/.test(value.trim()) ? Number(value.trim()) : (Date.parse(value) - now) / 1000;
  if (!Number.isFinite(seconds)) return undefined;
  return Math.min(MAX_RETRY_AFTER, Math.max(0, Math.ceil(seconds)));
}

function describe(error: unknown, hook: Hook): string {
  const e = error as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (code === "EPRIVATEADDRESS" || e.cause?.code === "EPRIVATEADDRESS") return "Target resolves to a private address (refused)";
  if (code === "UND_ERR_CONNECT_TIMEOUT") return `Connect timeout (${hook.timeout.connect} s)`;
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT" || e.name === "TimeoutError" || e.name === "AbortError")
    return `Read timeout (${hook.timeout.read} s)`;
  if (code === "ECONNREFUSED") return "Connection refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "Host not found";
  return e.message || String(error);
}
