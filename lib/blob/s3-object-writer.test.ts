import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { CreateBucketCommand, GetObjectCommand, ListMultipartUploadsCommand, S3Client } from "@aws-sdk/client-s3";
import { afterEach, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { s3ObjectWriter } from "./s3-object-writer";

/** Against a real S3 server (Ceph RGW started by the test run's global setup), never a mock. */
const endpoint = inject("s3Endpoint");
const credentials = { accessKeyId: "TESTACCESSKEY0000001", secretAccessKey: "testsecretkey0000000000000000000000000001" };
const Bucket = `arca-writer-${Date.now().toString(36)}`;
const MiB = 1 << 20;
let client: S3Client;
let sent: string[];

beforeAll(async () => {
  client = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials, requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED" });
  await client.send(new CreateBucketCommand({ Bucket }));
  // The commands the writer sends, in order (the requests themselves go to the real server).
  client.middlewareStack.add((next, context) => (args) => (sent.push(context.commandName!), next(args)), { step: "initialize" });
});
afterEach(() => vi.restoreAllMocks());

/** `mib` MiB of random bytes in 1 MiB chunks (`failAt`: an error instead of that chunk), and their md5. */
function source(mib: number, failAt?: number): { stream: Readable; md5: string } {
  const chunks = Array.from({ length: mib }, () => randomBytes(MiB));
  const md5 = createHash("md5");
  for (const chunk of chunks) md5.update(chunk);
  const stream = Readable.from(
    (function* () {
      for (let i = 0; i < chunks.length; i++) {
        if (i === failAt) throw new Error("source failed");
        yield chunks[i];
      }
    })(),
  );
  return { stream, md5: md5.digest("hex") };
}

async function stored(Key: string): Promise<string> {
  const object = await client.send(new GetObjectCommand({ Bucket, Key }));
  return createHash("md5").update(await object.Body!.transformToByteArray()).digest("hex");
}

describe("s3ObjectWriter", () => {
  it("sends a blob that fits in one part as a single PutObject", async () => {
    sent = [];
    const { stream, md5 } = source(8);
    await pipeline(stream, s3ObjectWriter(client, Bucket, "one-part", { partSize: 8 * MiB, queueSize: 4 }));
    expect(sent).toEqual(["PutObjectCommand"]);
    sent = [];
    expect(await stored("one-part")).toBe(md5);
  });

  it("streams a larger blob in parts through at most queueSize + 1 part buffers of its own", async () => {
    sent = [];
    const allocations = vi.spyOn(Buffer, "allocUnsafeSlow");
    const { stream, md5 } = source(45);
    await pipeline(stream, s3ObjectWriter(client, Bucket, "parts", { partSize: 5 * MiB, queueSize: 2 }));
    // 9 parts of 5 MiB; lib-storage's Upload allocated a fresh buffer for each.
    expect(sent.filter((name) => name === "UploadPartCommand")).toHaveLength(9);
    expect(sent[0]).toBe("CreateMultipartUploadCommand");
    expect(sent.at(-1)).toBe("CompleteMultipartUploadCommand");
    expect(allocations.mock.calls.filter(([size]) => size === 5 * MiB).length).toBeLessThanOrEqual(3);
    sent = [];
    expect(await stored("parts")).toBe(md5);
  });

  it("aborts its multipart upload when the source fails: no object, no parts left", async () => {
    sent = [];
    const { stream } = source(30, 22);
    await expect(pipeline(stream, s3ObjectWriter(client, Bucket, "failed", { partSize: 5 * MiB, queueSize: 2 }))).rejects.toThrow("source failed");
    // The abort goes once the parts in flight have settled, after the pipeline has given up.
    await vi.waitFor(() => expect(sent).toContain("AbortMultipartUploadCommand"));
    expect(sent).not.toContain("CompleteMultipartUploadCommand");
    const open = await client.send(new ListMultipartUploadsCommand({ Bucket }));
    expect(open.Uploads ?? []).toEqual([]);
    await expect(client.send(new GetObjectCommand({ Bucket, Key: "failed" }))).rejects.toMatchObject({ name: "NoSuchKey" });
  });
});
