/**
 * The framing of a `multipart/byteranges` body (RFC 9110 §14.6, RFC 2046 §5.1), computed up front
 * so the response can carry an exact Content-Length: clients (and proxies) that resume downloads
 * behave better with it, and it costs nothing since every part's length is known before a byte
 * is read. The bytes of each range are streamed by the caller between the framing strings:
 *
 *   for (const part of plan.parts) { write(part.head); pipe bytes part.range.start..end }
 *   write(plan.tail)
 */
import { randomBytes } from "node:crypto";
import { formatContentRange, type ByteRange } from "./range";

export interface MultipartBytesPart {
  range: ByteRange;
  /** Everything written before this part's bytes: delimiter, part header fields, blank line. */
  head: string;
}

export interface MultipartBytesPlan {
  /** The response's `Content-Type`: `multipart/byteranges; boundary=...`. */
  contentType: string;
  parts: MultipartBytesPart[];
  /** Written after the last part's bytes: the close delimiter. */
  tail: string;
  /** Exact length of the whole body in bytes: heads + ranges + tail. */
  contentLength: number;
}

/**
 * 24 random bytes in hex: 48 characters, within the 70 allowed (RFC 2046 §5.1.1) and unguessable,
 * so a stored file cannot be crafted to contain the delimiter and forge extra parts.
 */
export function createBoundary(): string {
  return randomBytes(24).toString("hex");
}

export function planMultipartByteranges(
  ranges: readonly ByteRange[],
  size: number,
  partContentType: string,
  boundary: string = createBoundary(),
): MultipartBytesPlan {
  // The CRLF that ends a part's bytes belongs to the next delimiter (RFC 2046), hence the
  // leading CRLF on every head but the first, and on the tail.
  const parts = ranges.map((range, index) => ({
    range,
    head:
      (index === 0 ? "" : "\r\n") +
      `--${boundary}\r\n` +
      `Content-Type: ${partContentType}\r\n` +
      `Content-Range: ${formatContentRange(size, range)}\r\n` +
      "\r\n",
  }));
  const tail = `\r\n--${boundary}--\r\n`;

  let contentLength = Buffer.byteLength(tail);
  for (const part of parts) {
    contentLength += Buffer.byteLength(part.head) + (part.range.end - part.range.start + 1);
  }

  return {
    contentType: `multipart/byteranges; boundary=${boundary}`,
    parts,
    tail,
    contentLength,
  };
}
