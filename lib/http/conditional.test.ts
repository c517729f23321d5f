import { describe, expect, it } from "vitest";
import {
  conditionalHeadersFrom,
  parseHttpDate,
  evaluateConditional,
  type ConditionalDecision,
  type ConditionalHeaders,
} from "./conditional";

const ETAG = '"0cc175b9c0f1b6a831c399e269772661"';
const OTHER = '"92eb5ffee6ae2fec3ad71c777531578f"';
// Stored with milliseconds, as a database timestamp would be.
const MODIFIED = new Date("2024-05-01T12:00:00.750Z");
const AT = "Wed, 01 May 2024 12:00:00 GMT"; // the same second, as Last-Modified is sent
const BEFORE = "Wed, 01 May 2024 11:59:59 GMT";
const AFTER = "Wed, 01 May 2024 12:00:01 GMT";
const rep = { etag: ETAG, lastModified: MODIFIED, size: 1000 };

describe("evaluateConditional", () => {
  const cases: Array<[string, string, ConditionalHeaders, ConditionalDecision]> = [
    ["no conditions", "GET", {}, { status: 200 }],

    // If-Match (strong)
    ["If-Match same", "GET", { "if-match": ETAG }, { status: 200 }],
    ["If-Match in a list", "GET", { "if-match": `${OTHER}, ${ETAG}` }, { status: 200 }],
    ["If-Match other", "GET", { "if-match": OTHER }, { status: 412 }],
    ["If-Match weak never matches", "GET", { "if-match": `W/${ETAG}` }, { status: 412 }],
    ["If-Match *", "GET", { "if-match": "*" }, { status: 200 }],
    ["If-Match unquoted is not a tag", "GET", { "if-match": ETAG.slice(1, -1) }, { status: 412 }],
    ["If-Match fails a PUT too", "PUT", { "if-match": OTHER }, { status: 412 }],

    // If-Unmodified-Since
    ["If-Unmodified-Since same second", "GET", { "if-unmodified-since": AT }, { status: 200 }],
    ["If-Unmodified-Since later", "GET", { "if-unmodified-since": AFTER }, { status: 200 }],
    ["If-Unmodified-Since earlier", "GET", { "if-unmodified-since": BEFORE }, { status: 412 }],
    ["If-Unmodified-Since invalid is ignored", "GET", { "if-unmodified-since": "yesterday" }, { status: 200 }],
    ["If-Match wins over If-Unmodified-Since", "GET", { "if-match": ETAG, "if-unmodified-since": BEFORE }, { status: 200 }],

    // If-None-Match (weak)
    ["If-None-Match same", "GET", { "if-none-match": ETAG }, { status: 304 }],
    ["If-None-Match same on HEAD", "HEAD", { "if-none-match": ETAG }, { status: 304 }],
    ["If-None-Match weak matches weakly", "GET", { "if-none-match": `W/${ETAG}` }, { status: 304 }],
    ["If-None-Match in a list", "GET", { "if-none-match": `${OTHER},${ETAG}` }, { status: 304 }],
    ["If-None-Match tag with a comma inside", "GET", { "if-none-match": `"a,b", ${ETAG}` }, { status: 304 }],
    ["If-None-Match other", "GET", { "if-none-match": OTHER }, { status: 200 }],
    ["If-None-Match *", "GET", { "if-none-match": "*" }, { status: 304 }],
    ["If-None-Match on other methods is 412", "DELETE", { "if-none-match": ETAG }, { status: 412 }],
    ["If-None-Match garbage", "GET", { "if-none-match": "nonsense" }, { status: 200 }],

    // If-Modified-Since
    ["If-Modified-Since same second (ms ignored)", "GET", { "if-modified-since": AT }, { status: 304 }],
    ["If-Modified-Since later", "GET", { "if-modified-since": AFTER }, { status: 304 }],
    ["If-Modified-Since earlier", "GET", { "if-modified-since": BEFORE }, { status: 200 }],
    ["If-Modified-Since invalid is ignored", "GET", { "if-modified-since": "not a date" }, { status: 200 }],
    ["If-Modified-Since ignored for POST", "POST", { "if-modified-since": AT }, { status: 200 }],
    ["If-None-Match mismatch overrides If-Modified-Since", "GET", { "if-none-match": OTHER, "if-modified-since": AT }, { status: 200 }],
    ["RFC 850 date", "GET", { "if-modified-since": "Wednesday, 01-May-24 12:00:00 GMT" }, { status: 304 }],
    ["asctime date", "GET", { "if-modified-since": "Wed May  1 12:00:00 2024" }, { status: 304 }],

    // order: 412 before 304, 304 before ranges
    ["412 before 304", "GET", { "if-match": OTHER, "if-none-match": ETAG }, { status: 412 }],
    ["304 before 206", "GET", { "if-none-match": ETAG, range: "bytes=0-9" }, { status: 304 }],
    ["304 before 416", "GET", { "if-none-match": ETAG, range: "bytes=5000-" }, { status: 304 }],

    // ranges
    ["range", "GET", { range: "bytes=0-9" }, { status: 206, ranges: [{ start: 0, end: 9 }], multipart: false }],
    ["range on HEAD", "HEAD", { range: "bytes=0-9" }, { status: 206, ranges: [{ start: 0, end: 9 }], multipart: false }],
    ["range ignored on POST", "POST", { range: "bytes=0-9" }, { status: 200 }],
    ["several ranges", "GET", { range: "bytes=0-0,-1" }, { status: 206, ranges: [{ start: 0, end: 0 }, { start: 999, end: 999 }], multipart: true }],
    ["malformed range", "GET", { range: "bytes=abc" }, { status: 200 }],
    ["unsatisfiable range", "GET", { range: "bytes=1000-" }, { status: 416 }],
    ["If-None-Match mismatch then range", "GET", { "if-none-match": OTHER, range: "bytes=0-9" }, { status: 206, ranges: [{ start: 0, end: 9 }], multipart: false }],

    // If-Range
    ["If-Range same etag", "GET", { "if-range": ETAG, range: "bytes=0-9" }, { status: 206, ranges: [{ start: 0, end: 9 }], multipart: false }],
    ["If-Range other etag", "GET", { "if-range": OTHER, range: "bytes=0-9" }, { status: 200 }],
    ["If-Range weak etag is never strong", "GET", { "if-range": `W/${ETAG}`, range: "bytes=0-9" }, { status: 200 }],
    ["If-Range * is not an etag", "GET", { "if-range": "*", range: "bytes=0-9" }, { status: 200 }],
    ["If-Range same date", "GET", { "if-range": AT, range: "bytes=0-9" }, { status: 206, ranges: [{ start: 0, end: 9 }], multipart: false }],
    ["If-Range later date is stale", "GET", { "if-range": AFTER, range: "bytes=0-9" }, { status: 200 }],
    ["If-Range earlier date", "GET", { "if-range": BEFORE, range: "bytes=0-9" }, { status: 200 }],
    ["If-Range garbage", "GET", { "if-range": "garbage", range: "bytes=0-9" }, { status: 200 }],
    ["stale If-Range beats 416", "GET", { "if-range": OTHER, range: "bytes=5000-" }, { status: 200 }],
    ["fresh If-Range then 416", "GET", { "if-range": ETAG, range: "bytes=5000-" }, { status: 416 }],
    ["If-Range without Range", "GET", { "if-range": OTHER }, { status: 200 }],

    // absent fields as Headers.get reports them
    ["nulls are absent", "GET", { "if-match": null, "if-none-match": null, range: null }, { status: 200 }],
  ];

  it.each(cases)("%s (%s)", (_name, method, headers, expected) => {
    expect(evaluateConditional(method, rep, headers)).toEqual(expected);
  });

  it("an empty file: any int-range is 416, a suffix is ignored", () => {
    const empty = { ...rep, size: 0 };
    expect(evaluateConditional("GET", empty, { range: "bytes=0-" })).toEqual({ status: 416 });
    expect(evaluateConditional("GET", empty, { range: "bytes=-10" })).toEqual({ status: 200 });
  });
});

describe("conditionalHeadersFrom", () => {
  it("reads the fields from Fetch headers, case-insensitively", () => {
    const headers = new Headers({ "If-None-Match": ETAG, Range: "bytes=0-1" });
    expect(conditionalHeadersFrom(headers)).toEqual({
      "if-match": null,
      "if-unmodified-since": null,
      "if-none-match": ETAG,
      "if-modified-since": null,
      "if-range": null,
      range: "bytes=0-1",
    });
    expect(evaluateConditional("GET", rep, conditionalHeadersFrom(headers))).toEqual({ status: 304 });
  });
});

describe("parseHttpDate", () => {
  const noon = Date.UTC(2024, 4, 1, 12, 0, 0) / 1000;
  it.each([
    ["Wed, 01 May 2024 12:00:00 GMT", noon],
    ["Wednesday, 01-May-24 12:00:00 GMT", noon],
    ["Wed May  1 12:00:00 2024", noon], // no zone, yet GMT whatever the server's TZ
    ["Wed May 11 12:00:00 2024", noon + 10 * 86400],
    ["Thursday, 01-Jan-70 00:00:00 GMT", 0],
    ["  Wed, 01 May 2024 12:00:00 GMT  ", noon],
    ["wed, 01 may 2024 12:00:00 GMT", noon],
    ["Wed, 01 May 2024 12:00:00 +0000", undefined],
    ["2024-05-01T12:00:00Z", undefined],
    ["2024-05-01", undefined],
    ["Wed, 01 Foo 2024 12:00:00 GMT", undefined],
    ["Wed, 01 May 2024 25:00:00 GMT", undefined],
    ["", undefined],
    ["yesterday", undefined],
  ])("%j -> %s", (value, expected) => {
    expect(parseHttpDate(value)).toBe(expected);
  });
});
