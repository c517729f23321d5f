import { createHash, randomBytes } from "node:crypto";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { describe, expect, it } from "vitest";
import { blobMeter } from "./blob-meter";
import { BlobTooLargeError } from "./blob-store";

/** `bytes` in chunks of the given sizes (cycled), through a meter into a sink that keeps what it got. */
async function meter(bytes: Buffer, sizes: number[], options: { deferDigest?: boolean; maxBytes?: number } = {}) {
  const chunks: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const n = sizes[i % sizes.length];
    chunks.push(bytes.subarray(at, at + n));
    at += n;
  }
  const got: Buffer[] = [];
  const sink = new Writable({ write: (chunk: Buffer, _encoding, callback) => (got.push(chunk), setImmediate(callback)) });
  const metered = blobMeter(options.maxBytes ?? Number.POSITIVE_INFINITY, 4100, { deferDigest: options.deferDigest });
  await pipeline(Readable.from(chunks), metered.stream, sink);
  return { metered, got: Buffer.concat(got) };
}

describe("blobMeter", () => {
  const bytes = randomBytes(9 * 1024 * 1024 + 123);
  const md5 = createHash("md5").update(bytes).digest("hex");

  it.each([
    ["64 KiB chunks", [64 * 1024]],
    ["odd sizes", [1, 4099, 7, 300_000]],
    ["one chunk above the digest's lag", [6 * 1024 * 1024]],
  ])("hashed behind the bytes (%s) gives the same size, md5 and head as hashed in line", async (_name, sizes) => {
    for (const deferDigest of [false, true]) {
      const { metered, got } = await meter(bytes, sizes, { deferDigest });
      expect(got.equals(bytes)).toBe(true);
      await metered.digested();
      const result = metered.result();
      expect(result.size).toBe(bytes.length);
      expect(result.md5).toBe(md5);
      expect(Buffer.from(result.head).equals(bytes.subarray(0, 4100))).toBe(true);
    }
  });

  it("result() is complete even before the deferred hashing has caught up", async () => {
    const { metered } = await meter(bytes, [64 * 1024], { deferDigest: true });
    expect(metered.result().md5).toBe(md5);
  });

  it("refuses more than maxBytes before passing the chunk on, deferred or not", async () => {
    for (const deferDigest of [false, true]) {
      const run = meter(bytes, [1024 * 1024], { deferDigest, maxBytes: 3 * 1024 * 1024 });
      await expect(run).rejects.toBeInstanceOf(BlobTooLargeError);
    }
  });
});
