/**
 * The one error type of Arca. Domain code throws it; `lib/http/errors.ts` maps it to the
 * contract's body `{ message, errors? }` and status. Every kind is tied to exactly one status.
 */
export const errorStatus = {
  badRequest: 400,
  unauthorized: 401,
  paymentRequired: 402,
  forbidden: 403,
  notFound: 404,
  methodNotAllowed: 405,
  conflict: 409,
  gone: 410,
  payloadTooLarge: 413,
  unsupportedMediaType: 415,
  rangeNotSatisfiable: 416,
  validation: 422,
  tooManyRequests: 429,
  internal: 500,
  badGateway: 502,
  serviceUnavailable: 503,
} as const;

export type ErrorKind = keyof typeof errorStatus;

export interface PropertyError {
  property: string | null;
  message: string;
}

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly errors: PropertyError[] | undefined;
  /** Seconds a client should wait before trying again (429, 503): sent as `Retry-After`. */
  retryAfter: number | undefined;

  constructor(kind: ErrorKind, message: string, errors?: PropertyError[]) {
    super(message);
    this.name = "AppError";
    this.kind = kind;
    this.errors = errors;
  }

  get status(): number {
    return errorStatus[this.kind];
  }
}

export const badRequest = (message: string) => new AppError("badRequest", message);
export const unauthorized = (message = "Not authorized") => new AppError("unauthorized", message);
export const paymentRequired = (message: string) => new AppError("paymentRequired", message);
export const forbidden = (message = "Forbidden") => new AppError("forbidden", message);
export const notFound = (message: string) => new AppError("notFound", message);
export const methodNotAllowed = (message = "Method not allowed") => new AppError("methodNotAllowed", message);
export const conflict = (message: string) => new AppError("conflict", message);
export const payloadTooLarge = (message: string) => new AppError("payloadTooLarge", message);
export const unsupportedMediaType = (message: string) => new AppError("unsupportedMediaType", message);
export const gone = (message: string) => new AppError("gone", message);
export const badGateway = (message: string) => new AppError("badGateway", message);
export function tooManyRequests(retryAfterSeconds: number, message = "Too many attempts, try again later"): AppError {
  const error = new AppError("tooManyRequests", message);
  error.retryAfter = Math.max(1, Math.ceil(retryAfterSeconds));
  return error;
}
export function serviceUnavailable(message: string, retryAfterSeconds = 1): AppError {
  const error = new AppError("serviceUnavailable", message);
  error.retryAfter = Math.max(1, Math.ceil(retryAfterSeconds));
  return error;
}
/** A save (PUT) refused before it is known to create or replace: both rights are missing, so the answer names both. */
export const neitherWriteNorUpdate = (collectionId: string) => forbidden(`Not allowed to write or update in collection ${collectionId}`);

export const validationError = (message: string, errors?: PropertyError[]) =>
  new AppError("validation", message, errors);

/** Maps PostgreSQL errors that carry meaning for a client (unique violation) to AppError. */
export function fromDatabaseError(error: unknown): AppError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "23505") {
    // A collection's unique index (named `di_...`, lib/collections), whichever write broke it.
    const constraint = (error as { constraint?: unknown }).constraint;
    if (typeof constraint === "string" && constraint.startsWith("di_")) return conflict("Document violates a unique index of the collection.");
    return conflict("Document with this key already exists.");
  }
  // A write whose project or collection was deleted under it (the row it refers to is gone).
  if (code === "23503") {
    const constraint = String((error as { constraint?: unknown }).constraint ?? "");
    if (/collection_id_fkey$/.test(constraint)) return notFound("Collection not found.");
    if (/project_id_fkey$/.test(constraint)) return notFound("Project not found.");
    return conflict("What this write refers to was deleted meanwhile.");
  }
  // Two transactions waited on each other (or could not be serialized): PostgreSQL cancelled this
  // one; nothing of it was written.
  if (code === "40P01" || code === "40001") return serviceUnavailable("The request collided with a concurrent change; try again", 1);
  // lock_timeout (set on the role of an external server): the statement gave up waiting for a
  // lock a long request holds.
  if (code === "55P03") return serviceUnavailable("The database is busy with a long request; try again", 1);
  if (code === "22P02" || code === "22023") return badRequest("Malformed value in query.");
  // statement_timeout (ARCA_STATEMENT_TIMEOUT_MS) cancelled it: the request was too costly, not wrong.
  if (code === "57014") return serviceUnavailable("The query ran past its time limit; narrow the filter or try again later", 5);
  // The filter compiler accepts only regular patterns, but PostgreSQL may still refuse one (size).
  if (code === "2201B") return badRequest("Invalid $regex: the database refused the pattern");
  if (code === "54001") return badRequest("The query is too complex");
  // program_limit_exceeded: a value past one of PostgreSQL's own bounds. The one a client reaches
  // is a text-indexed property whose words pass 1 MiB (on a write, or when the index is built).
  if (code === "54000") {
    const message = (error as { message?: string }).message ?? "";
    if (/tsvector/.test(message))
      return validationError("Validation error", [{ property: null, message: "a text-indexed property is too long for full-text search (its words take at most 1 MiB)" }]);
    return badRequest("A value is past the database's limits");
  }
  if (code === "22P05") return badRequest("Malformed value in query: unsupported Unicode escape");
  // NUL (or bytes that are not UTF-8) in an id or name from the URL: text cannot hold it.
  if (code === "22021") return badRequest("Malformed value in query: text cannot hold NUL or invalid UTF-8");
  // The database is gone or going (stopped, restarting, out of connections): nothing of the
  // request was done, and it may succeed later; `/api/health/ready` says so too.
  if (isDatabaseUnreachable(error)) return serviceUnavailable("The database or the file store is unavailable; try again later", 5);
  return undefined;
}

// Not ECONNRESET or EPIPE: those are also a client that went away mid-request.
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "57P01", "57P02", "57P03", "53300", "08000", "08001", "08003", "08006"]);

/** Connection-level failures, from the socket or from PostgreSQL shutting down or full. */
function isDatabaseUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && UNREACHABLE_CODES.has(code)) return true;
  // node-postgres's own words for a connection it lost or never had.
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" && /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect)/.test(message);
}
