/**
 * Conditional and range requests for a stored file (RFC 9110 §13 and §14), decided by one pure
 * function in the order pillarjs/send uses: 412, then 304, then a stale `If-Range` drops the
 * range, then 416, then 206, else 200.
 */
import { parseRange, type ByteRange } from "./range";

/** What the server knows about the representation it would send. */
export interface Representation {
  /** A strong entity-tag, quoted: `"<md5>"`. */
  etag: string;
  lastModified: Date;
  size: number;
}

/** The request header fields that matter here, keyed by lower-case name. */
export interface ConditionalHeaders {
  "if-match"?: string | null;
  "if-unmodified-since"?: string | null;
  "if-none-match"?: string | null;
  "if-modified-since"?: string | null;
  "if-range"?: string | null;
  range?: string | null;
}

export type ConditionalDecision =
  | { status: 200 }
  | { status: 206; ranges: ByteRange[]; multipart: boolean }
  | { status: 304 }
  | { status: 412 }
  | { status: 416 };

export function evaluateConditional(
  method: string,
  representation: Representation,
  headers: ConditionalHeaders,
): ConditionalDecision {
  const safe = method === "GET" || method === "HEAD";
  const ifMatch = headers["if-match"];
  const ifUnmodifiedSince = headers["if-unmodified-since"];
  const ifNoneMatch = headers["if-none-match"];
  const ifModifiedSince = headers["if-modified-since"];

  // §13.2.2 steps 1-2: If-Unmodified-Since only counts when If-Match is absent.
  if (ifMatch != null) {
    if (!matchesAny(ifMatch, representation.etag, strongEqual)) return { status: 412 };
  } else if (ifUnmodifiedSince != null) {
    const since = parseHttpDate(ifUnmodifiedSince);
    if (since !== undefined && seconds(representation.lastModified) > since) return { status: 412 };
  }

  // Steps 3-4: If-Modified-Since only counts when If-None-Match is absent, and only for GET/HEAD.
  if (ifNoneMatch != null) {
    if (matchesAny(ifNoneMatch, representation.etag, weakEqual)) return safe ? { status: 304 } : { status: 412 };
  } else if (safe && ifModifiedSince != null) {
    const since = parseHttpDate(ifModifiedSince);
    if (since !== undefined && seconds(representation.lastModified) <= since) return { status: 304 };
  }

  // RFC 9110 defines ranges for GET only; HEAD gets the same answer as GET would (as send does,
  // and §9.3.2 asks for the same header fields), so a client can probe a range cheaply.
  const range = headers.range;
  if (!safe || !range) return { status: 200 };
  const ifRange = headers["if-range"];
  if (ifRange != null && !ifRangeHolds(ifRange, representation)) return { status: 200 };

  const ranges = parseRange(representation.size, range);
  if (ranges === "ignore") return { status: 200 };
  if (ranges === "unsatisfiable") return { status: 416 };
  return { status: 206, ...ranges };
}

/**
 * §13.1.5: an entity-tag must match strongly; a date must equal Last-Modified exactly (send's
 * `<=` would hand out a range of a representation changed within the same second more easily;
 * equality is what the RFC says). Anything unparsable fails, which only costs a full 200.
 */
function ifRangeHolds(value: string, representation: Representation): boolean {
  const trimmed = value.trim();
  if (trimmed.startsWith('"') || trimmed.startsWith("W/")) {
    const tags = parseEntityTags(trimmed);
    return tags.length === 1 && tags[0] !== "*" && strongEqual(tags[0], representation.etag);
  }
  const date = parseHttpDate(trimmed);
  return date !== undefined && date === seconds(representation.lastModified);
}

/** HTTP dates carry whole seconds; a Date from the database carries milliseconds. */
function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const IMF_FIXDATE = /^[A-Za-z]{3}, (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC_850 = /^[A-Za-z]{6,9}, (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME = /^[A-Za-z]{3} ([A-Za-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/**
 * Whole seconds since the epoch for the three HTTP-date forms (RFC 9110 §5.6.7), or undefined
 * for a value a recipient MUST ignore. Not `Date.parse`: it reads the zone-less asctime form in
 * the server's local time zone and accepts many things that are not HTTP dates.
 */
export function parseHttpDate(value: string): number | undefined {
  const trimmed = value.trim();
  let m: RegExpExecArray | null;
  if ((m = IMF_FIXDATE.exec(trimmed))) return utcSeconds(+m[3], m[2], +m[1], +m[4], +m[5], +m[6]);
  if ((m = RFC_850.exec(trimmed))) {
    // Two-digit years: read as the most recent matching year that is not far in the future.
    const yy = +m[3];
    return utcSeconds(yy < 70 ? 2000 + yy : 1900 + yy, m[2], +m[1], +m[4], +m[5], +m[6]);
  }
  if ((m = ASCTIME.exec(trimmed))) return utcSeconds(+m[6], m[1], +m[2].trim(), +m[3], +m[4], +m[5]);
  return undefined;
}

function utcSeconds(year: number, month: string, day: number, h: number, min: number, s: number): number | undefined {
  const monthIndex = MONTHS.indexOf(month.toLowerCase());
  if (monthIndex === -1 || day < 1 || day > 31 || h > 23 || min > 59 || s > 60) return undefined;
  return Math.floor(Date.UTC(year, monthIndex, day, h, min, s) / 1000);
}

function matchesAny(field: string, etag: string, equal: (a: string, b: string) => boolean): boolean {
  return parseEntityTags(field).some((tag) => tag === "*" || equal(tag, etag));
}

function strongEqual(a: string, b: string): boolean {
  return !a.startsWith("W/") && !b.startsWith("W/") && a === b;
}

function weakEqual(a: string, b: string): boolean {
  return opaque(a) === opaque(b);
}

function opaque(tag: string): string {
  return tag.startsWith("W/") ? tag.slice(2) : tag;
}

/**
 * `*` or a list of entity-tags. A comma is a legal character inside an opaque-tag, so the list
 * is scanned rather than split on commas; malformed members are skipped, not fatal.
 */
function parseEntityTags(field: string): string[] {
  const tags: string[] = [];
  let i = 0;
  while (i < field.length) {
    const c = field[i];
    if (c === " " || c === "\t" || c === ",") {
      i++;
      continue;
    }
    if (c === "*") {
      tags.push("*");
      i++;
      continue;
    }
    const weak = field.startsWith('W/"', i);
    if (weak || c === '"') {
      const open = i + (weak ? 2 : 0);
      const close = field.indexOf('"', open + 1);
      if (close === -1) break;
      tags.push(field.slice(i, close + 1));
      i = close + 1;
      continue;
    }
    const comma = field.indexOf(",", i);
    if (comma === -1) break;
    i = comma + 1;
  }
  return tags;
}

/** Reads the six fields from a Fetch `Headers` (Hono's `c.req.raw.headers`). */
export function conditionalHeadersFrom(headers: Headers): ConditionalHeaders {
  return {
    "if-match": headers.get("if-match"),
    "if-unmodified-since": headers.get("if-unmodified-since"),
    "if-none-match": headers.get("if-none-match"),
    "if-modified-since": headers.get("if-modified-since"),
    "if-range": headers.get("if-range"),
    range: headers.get("range"),
  };
}
