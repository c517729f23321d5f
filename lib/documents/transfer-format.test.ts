import { describe, expect, it } from "vitest";
import { CsvParser, csvCell, csvColumns, csvRecord, csvValue, jsonLine, LineSplitter, RecordTooLarge } from "./transfer-format";

function parseCsv(chunks: string[], max = 1000): string[][] {
  const parser = new CsvParser(max);
  const out: string[][] = [];
  for (const chunk of chunks) for (const r of parser.push(chunk)) out.push(r.fields);
  for (const r of parser.end()) out.push(r.fields);
  return out;
}

function splitLines(chunks: string[]): [number, string][] {
  const splitter = new LineSplitter(1000);
  const out: [number, string][] = [];
  for (const chunk of chunks) for (const l of splitter.push(chunk)) out.push([l.line, l.text]);
  for (const l of splitter.end()) out.push([l.line, l.text]);
  return out;
}

describe("CSV", () => {
  it("writes RFC 4180 records and reads them back, whatever the chunking", () => {
    const rows = [["_id", "text", "n"], ["a", 'say "hi", then\r\nleave', "1"], ["b", "", "x,y"], ["c", "é😀", "\n"]];
    const text = rows.map(csvRecord).join("");
    expect(csvRecord(["a", 'b"c', "d,e"])).toBe('a,"b""c","d,e"\r\n');
    expect(parseCsv([text])).toEqual(rows);
    // Every split point, including between CR and LF and inside a doubled quote.
    for (let i = 1; i < text.length; i++) expect(parseCsv([text.slice(0, i), text.slice(i)])).toEqual(rows);
  });

  it("takes LF, CR and a missing final line break; skips blank lines; keeps a quoted empty field", () => {
    expect(parseCsv(["a,b\nc,d\n\n\ne,f"])).toEqual([["a", "b"], ["c", "d"], ["e", "f"]]);
    expect(parseCsv(["a,b\rc,d\r"])).toEqual([["a", "b"], ["c", "d"]]);
    expect(parseCsv(['""\n'])).toEqual([[""]]);
    expect(parseCsv(["a,\n"])).toEqual([["a", ""]]);
  });

  it("refuses a record longer than the limit", () => {
    expect(() => parseCsv([`"${"x".repeat(50)}`], 20)).toThrow(RecordTooLarge);
    expect(() => parseCsv(["y".repeat(50)], 20)).toThrow(RecordTooLarge);
  });

  it("values: strings as is, numbers and booleans as text, null empty, objects as JSON", () => {
    expect([csvValue("s"), csvValue(1.5), csvValue(false), csvValue(null), csvValue(undefined), csvValue({ a: [1] })]).toEqual(["s", "1.5", "false", "", "", '{"a":[1]}']);
  });

  it("cells are typed by the schema; what does not parse stays a string for validation to report", () => {
    expect(csvCell("", { type: "string" })).toBeUndefined();
    expect(csvCell("42", { type: "integer" })).toBe(42);
    expect(csvCell("4.5", { type: "integer" })).toBe("4.5");
    expect(csvCell("-4.5e2", { type: "number" })).toBe(-450);
    expect(csvCell("1x", { type: "number" })).toBe("1x");
    expect(csvCell("TRUE", { type: "boolean" })).toBe(true);
    expect(csvCell("yes", { type: "boolean" })).toBe("yes");
    expect(csvCell('{"a":1}', { type: "object" })).toEqual({ a: 1 });
    expect(csvCell("[1,2]", { type: ["array", "null"] })).toEqual([1, 2]);
    expect(csvCell("[oops", { type: "array" })).toBe("[oops");
    expect(csvCell("42", undefined)).toBe("42");
    expect(csvCell("42", { type: "string" })).toBe("42");
  });

  it("columns: _id, the schema's properties by position, then the sample's other keys", () => {
    const schema = { properties: { b: { type: "string", position: 2 }, a: { type: "string", position: 1 }, z: { type: "string" } } };
    expect(csvColumns(schema, [{ _id: "1", extra: 1, a: "x" }, { _id: "2", more: 2 }])).toEqual(["_id", "a", "b", "z", "extra", "more"]);
    expect(csvColumns(null, [{ _id: "1", k: 1 }])).toEqual(["_id", "k"]);
  });
});

describe("JSON Lines", () => {
  it("one document per line; LF or CRLF; blank lines counted but skipped; any chunking", () => {
    expect(jsonLine({ n: 1, _id: "a" })).toBe('{"_id":"a","n":1}\n');
    const text = '{"a":1}\r\n\n  \n{"b":"x\\ny"}\n{"c":3}';
    const expected: [number, string][] = [[1, '{"a":1}'], [4, '{"b":"x\\ny"}'], [5, '{"c":3}']];
    for (let i = 1; i < text.length; i++) expect(splitLines([text.slice(0, i), text.slice(i)])).toEqual(expected);
  });

  it("refuses a line longer than the limit", () => {
    const splitter = new LineSplitter(10);
    expect(() => [...splitter.push("x".repeat(11))]).toThrow(RecordTooLarge);
    expect(() => [...new LineSplitter(10).push(`${"x".repeat(11)}\nshort\n`)]).toThrow(/Line 1 is longer/);
  });
});
