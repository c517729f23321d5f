import { createHash } from "node:crypto";
import { Transform } from "node:stream";
import { BlobTooLargeError } from "./blob-store";

/**
 * The pass-through every store puts an upload through: counts bytes (refusing more than
 * `maxBytes`, checked per chunk before it goes on), computes the md5 and keeps the first
 * `headBytes` bytes for content-type detection.
 */
export interface BlobMeter {
  stream: Transform;
  result(): { size: number; md5: string; head: Uint8Array };
}

export function blobMeter(maxBytes: number, headBytes: number): BlobMeter {
  const md5 = createHash("md5");
  let size = 0;
  const head: Buffer[] = [];
  let headLength = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > maxBytes) return callback(new BlobTooLargeError(maxBytes));
      md5.update(chunk);
      if (headLength < headBytes) {
        const piece = Buffer.from(chunk.subarray(0, headBytes - headLength));
        head.push(piece);
        headLength += piece.length;
      }
      callback(null, chunk);
    },
  });
  return { stream, result: () => ({ size, md5: md5.digest("hex"), head: Buffer.concat(head) }) };
}
