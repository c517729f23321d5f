/**
 * Typed fetch helpers for the dashboard: same-origin calls to `/api/` carrying the next-auth
 * cookie; project-scoped calls name the project in `X-Project`. Browser-only: no server imports.
 */
export interface PropertyError {
  property: string | null;
  message: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly errors: PropertyError[];

  constructor(status: number, message: string, errors: PropertyError[] = []) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.errors = errors;
  }

  /** The message for one property (`name`, `settings.debug`), if the API named it. */
  errorFor(property: string): string | undefined {
    return this.errors.find((e) => e.property === property)?.message;
  }
}

export interface ApiRequest {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Sent as `X-Project`. */
  project?: string;
  /** Sent as `X-Action`. */
  action?: string;
  json?: unknown;
  /** The JSON body's media type: `application/merge-patch+json` for an RFC 7396 PATCH. */
  contentType?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export async function apiFetch<T>(path: string, request: ApiRequest = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json", ...request.headers };
  if (request.project) headers["x-project"] = request.project;
  if (request.action) headers["x-action"] = request.action;
  let body: string | undefined;
  if (request.json !== undefined) {
    headers["content-type"] = request.contentType ?? "application/json";
    body = JSON.stringify(request.json);
  }
  let response: Response;
  try {
    response = await fetch(path, { method: request.method ?? "GET", headers, body, credentials: "same-origin", signal: request.signal });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new ApiError(0, "Cannot reach the server. Check your connection and try again.");
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!response.ok) {
    const message = isRecord(data) && typeof data.message === "string" ? data.message : `Request failed (${response.status})`;
    const errors = isRecord(data) && Array.isArray(data.errors) ? (data.errors as PropertyError[]) : [];
    throw new ApiError(response.status, message, errors);
  }
  return data as T;
}

/** A readable line for any error a hook may surface: the API's message plus its property errors. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const details = error.errors.map((e) => (e.property ? `${e.property}: ${e.message}` : e.message));
    return details.length ? `${error.message}: ${details.join("; ")}` : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
