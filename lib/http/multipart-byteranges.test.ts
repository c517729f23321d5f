import { describe, expect, it } from "vitest";
import { createBoundary, planMultipartByteranges } from "./multipart-byteranges";
import type { ByteRange } from "./range";

const FILE = Buffer.from("0123456789abcdefghijklmnopqrstuvwxyz");

/** What a caller does with a plan, in memory, so the framing can be checked byte for byte. */
function assemble(ranges: ByteRange[], contentType: string, boundary: string): { body: Buffer; declared: number } {
  const plan = planMultipartByteranges(ranges, FILE.length, contentType, boundary);
  const chunks: Buffer[] = [];
  for (const part of plan.parts) {
    chunks.push(Buffer.from(part.head), FILE.subarray(part.range.start, part.range.end + 1));
  }
  chunks.push(Buffer.from(plan.tail));
  return { body: Buffer.concat(chunks), declared: plan.contentLength };
}

describe("planMultipartByteranges", () => {
  it("frames two ranges exactly", () => {
    const { body, declared } = assemble(
      [{ start: 0, end: 0 }, { start: 35, end: 35 }],
      "text/plain",
      "BOUNDARY",
    );
    expect(body.toString()).toBe(
      "--BOUNDARY\r\n" +
        "Content-Type: text/plain\r\n" +
        "Content-Range: bytes 0-0/36\r\n" +
        "\r\n" +
        "0" +
        "\r\n--BOUNDARY\r\n" +
        "Content-Type: text/plain\r\n" +
        "Content-Range: bytes 35-35/36\r\n" +
        "\r\n" +
        "z" +
        "\r\n--BOUNDARY--\r\n",
    );
    expect(declared).toBe(body.length);
  });

  it.each<[string, ByteRange[], string]>([
    ["one range", [{ start: 3, end: 9 }], "application/pdf"],
    ["three ranges", [{ start: 0, end: 4 }, { start: 10, end: 19 }, { start: 30, end: 35 }], "image/png"],
    ["whole file twice", [{ start: 0, end: 35 }, { start: 0, end: 35 }], "application/octet-stream"],
    ["non-ASCII in the part type is counted in bytes", [{ start: 0, end: 1 }, { start: 5, end: 6 }], "text/plain; x=\u00e9"],
  ])("Content-Length equals the assembled body: %s", (_name, ranges, type) => {
    const { body, declared } = assemble(ranges, type, createBoundary());
    expect(declared).toBe(body.length);
  });

  it("reports the response content type with the boundary", () => {
    const plan = planMultipartByteranges([{ start: 0, end: 0 }, { start: 2, end: 2 }], 3, "text/plain", "xyz");
    expect(plan.contentType).toBe("multipart/byteranges; boundary=xyz");
    expect(plan.parts.map((p) => p.range)).toEqual([{ start: 0, end: 0 }, { start: 2, end: 2 }]);
  });

  it("makes fresh, valid boundaries", () => {
    const a = createBoundary();
    const b = createBoundary();
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[0-9a-f]{48}$/); // bchars, at most 70
  });
});
