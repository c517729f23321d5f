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
  /** Resolves once every byte that passed is in the md5 (at once unless `deferDigest`). */
  digested(): Promise<void>;
  result(): { size: number; md5: string; head: Uint8Array };
}

/**
 * With `deferDigest`, a chunk goes on before it is hashed, and the hashing runs one chunk per
 * turn of the event loop behind the bytes, at most DIGEST_LAG bytes behind (beyond that a chunk
 * is hashed before it goes on, so memory stays bounded). A store that syncs the file after its
 * last write then hashes while the disk flushes, instead of before it.
 */
export function blobMeter(maxBytes: number, headBytes: number, { deferDigest = false } = {}): BlobMeter {
  const md5 = createHash("md5");
  let size = 0;
  const head: Buffer[] = [];
  let headLength = 0;
  const behind: Buffer[] = [];
  let behindBytes = 0;
  const caughtUp: Array<() => void> = [];
  let scheduled = false;
  const hashOne = () => {
    const chunk = behind.shift()!;
    behindBytes -= chunk.length;
    md5.update(chunk);
  };
  const step = () => {
    scheduled = false;
    if (behind.length > 0) hashOne();
    if (behind.length > 0) schedule();
    else for (const resolve of caughtUp.splice(0)) resolve();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(step);
  };
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > maxBytes) return callback(new BlobTooLargeError(maxBytes));
      if (headLength < headBytes) {
        const piece = Buffer.from(chunk.subarray(0, headBytes - headLength));
        head.push(piece);
        headLength += piece.length;
      }
      if (!deferDigest) {
        md5.update(chunk);
        return callback(null, chunk);
      }
      while (behindBytes + chunk.length > DIGEST_LAG && behind.length > 0) hashOne();
      behind.push(chunk);
      behindBytes += chunk.length;
      callback(null, chunk);
      schedule();
    },
  });
  return {
    stream,
    digested: () => (behind.length === 0 ? Promise.resolve() : new Promise<void>((resolve) => caughtUp.push(resolve))),
    result() {
      while (behind.length > 0) hashOne();
      return { size, md5: md5.digest("hex"), head: Buffer.concat(head) };
    },
  };
}

const DIGEST_LAG = 4 * 1024 * 1024;
