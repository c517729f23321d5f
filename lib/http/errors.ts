import type { Context } from "hono";
import { redactUrl } from "../auth/redact-credentials";
import { AppError, fromDatabaseError } from "../errors";

/** The single place where errors become the contract's `{ message, errors? }` bodies. */
export function errorResponse(c: Context, error: unknown): Response {
  const appError = error instanceof AppError ? error : fromDatabaseError(error);
  if (appError) {
    const body: Record<string, unknown> = { message: appError.message };
    if (appError.errors) body.errors = appError.errors;
    if (appError.retryAfter !== undefined) c.header("Retry-After", String(appError.retryAfter));
    // RFC 9110 §15.5.2: a 401 names the scheme it wants (not Basic: no browser sign-in prompt).
    if (appError.status === 401) c.header("WWW-Authenticate", 'Token realm="arca"');
    return c.json(body, appError.status as 400);
  }
  if (isClientAbort(error)) return c.json({ message: "Request aborted" }, 400);
  console.error(`api: ${c.req.method} ${redactUrl(c.req.url)}:`, error);
  return c.json({ message: "Internal error" }, 500);
}

function isClientAbort(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  const code = (error as { code?: string } | null)?.code;
  return name === "AbortError" || code === "ECONNRESET" || code === "ERR_STREAM_PREMATURE_CLOSE";
}

/** Secrets in URLs (`?token=`, however encoded) never reach the log (lib/auth/redact-credentials.ts). */
export { redactUrl };
