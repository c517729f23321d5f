import net from "node:net";
import type { Ajv } from "ajv";
import { linearRegExp } from "../query/linear-regexp";
import { canonicalJson } from "../query/json-values";

/**
 * The formats JSON Schema draft 4 defines (its validation spec, section 7.3): `date-time`,
 * `email`, `hostname`, `ipv4`, `ipv6`, `uri`. A collection schema that says `"format": "email"`
 * refuses a value that is not one (422 naming the property), as PocketBase's email fields do;
 * other format names stay annotations, as the draft allows. The checks run on request data, so
 * each is linear in its input: RE2 patterns or Node's address parsers, never a backtracking
 * regular expression.
 */
export const DRAFT4_FORMATS: Record<string, (value: string) => boolean> = {
  "date-time": (value) => DATE_TIME.test(value) && realDateTime(value),
  email: (value) => value.length <= 320 && EMAIL.test(value),
  hostname: (value) => value.length <= 253 && HOSTNAME.test(value),
  ipv4: (value) => net.isIPv4(value),
  ipv6: (value) => net.isIPv6(value),
  uri: (value) => URI.test(value),
};

/** Registers DRAFT4_FORMATS with an Ajv instance (collection schemas, hook conditions). */
export function addDraft4Formats(ajv: Pick<Ajv, "addFormat">): void {
  for (const [name, validate] of Object.entries(DRAFT4_FORMATS)) ajv.addFormat(name, { type: "string", validate });
}

/**
 * `uniqueItems` in linear time. Ajv compares arrays of objects pair by pair with a deep equality:
 * 20,000 objects held the event loop (every project's requests) for 7 s, 100,000 for minutes.
 * Here each item's canonical JSON (keys sorted: JSON Schema equality ignores key order) goes
 * into a Set. Registered on every Ajv instance that validates request data.
 */
export function addLinearUniqueItems(ajv: Ajv): void {
  ajv.removeKeyword("uniqueItems");
  ajv.addKeyword({
    keyword: "uniqueItems",
    type: "array",
    schemaType: "boolean",
    errors: true,
    validate: function unique(wanted: boolean, data: unknown[]): boolean {
      if (!wanted) return true;
      const seen = new Map<string, number>();
      for (const [index, item] of data.entries()) {
        const key = canonicalJson(item);
        const first = seen.get(key);
        if (first !== undefined) {
          (unique as { errors?: unknown[] }).errors = [
            { keyword: "uniqueItems", message: `must NOT have duplicate items (items ## ${first} and ${index} are identical)`, params: { i: index, j: first } },
          ];
          return false;
        }
        seen.set(key, index);
      }
      return true;
    },
  });
}

const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
// RFC 3339 date-time.
const DATE_TIME = linearRegExp("^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:[Zz]|[+-]\\d{2}:\\d{2})$");
// The WHATWG HTML spec's valid e-mail address (what browsers check for type=email).
const EMAIL = linearRegExp(`^[A-Za-z0-9.!#$%&'*+/=?^_\`{|}~-]+@${LABEL}(?:\\.${LABEL})*$`);
const HOSTNAME = linearRegExp(`^${LABEL}(?:\\.${LABEL})*\\.?$`);
// RFC 3986 absolute URI: a scheme, then no whitespace.
const URI = linearRegExp("^[A-Za-z][A-Za-z0-9+.-]*:[^\\s]*$");

/** `Date.parse` rolls 2024-02-30 over into March: the day of a `YYYY-MM-DD...` value must exist in its month. */
export function realCalendarDate(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split("-").map(Number);
  if (month < 1 || month > 12 || day < 1) return false;
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999 (0000 is a leap year, 1900 not).
  const lastOfMonth = new Date(0);
  lastOfMonth.setUTCFullYear(year, month, 0);
  return day <= lastOfMonth.getUTCDate();
}

/**
 * A `datetime` is stored as UTC in `toISOString`'s form, which has four-digit years only for
 * instants in years 0000-9999 (else `+010000-...`, which is not ISO 8601's basic form, sorts out
 * of time order as text, and would be refused when written back): outside them it is refused.
 */
export function withinFourDigitYears(value: string): boolean {
  const year = new Date(Date.parse(value)).getUTCFullYear();
  return year >= 0 && year <= 9999;
}

/** Month, day, hour, minute and second within their ranges (a leap second allowed). */
function realDateTime(value: string): boolean {
  const [hour, minute, second] = value.slice(11, 19).split(":").map(Number);
  if (!realCalendarDate(value)) return false;
  if (hour > 23 || minute > 59 || second > 60) return false;
  const offset = /[+-](\d{2}):(\d{2})$/.exec(value);
  return !offset || (Number(offset[1]) <= 23 && Number(offset[2]) <= 59);
}

/**
 * ajv's `multipleOf` divides in binary floating point: 19.99 / 0.01 is 1998.9999999999998, so
 * without a tolerance a price "is not a multiple of 0.01". Draft 4 means the decimal quotient;
 * a quotient within 1e-9 of a whole number counts as whole (both ajv setups use it).
 */
export const MULTIPLE_OF_PRECISION = 9;

/**
 * `{"$ref": "#"}` reached again without reading deeper into the value recurses until the stack
 * overflows, on every value: tried once on the simplest values when the schema is saved.
 */
export function loopsWithoutEnd(validate: (value: unknown) => unknown): boolean {
  for (const value of [{}, [], null, 0, "", true]) {
    try {
      validate(value);
    } catch (error) {
      if (error instanceof RangeError) return true;
    }
  }
  return false;
}
