import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { CreateBucketCommand, ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { BlobTooLargeError } from "./blob-store";
import { createS3BlobStore, s3SettingsFromEnv, transportProtectsPayload, type S3BlobStore } from "./s3-blob-store";

/** Against a real S3 server (Ceph RGW started by the test run's global setup), never a mock. */
const endpoint = inject("s3Endpoint");
const credentials = { accessKeyId: "TESTACCESSKEY0000001", secretAccessKey: "testsecretkey0000000000000000000000000001" };
const bucket = `arca-store-${Date.now().toString(36)}`;
let store: S3BlobStore;
let raw: S3Client;

beforeAll(async () => {
  raw = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials });
  await raw.send(new CreateBucketCommand({ Bucket: bucket }));
  store = createS3BlobStore({ endpoint, bucket, region: "us-east-1", forcePathStyle: true, ...credentials });
});

const md5 = (b: Buffer) => createHash("md5").update(b).digest("hex");
async function bytes(stream: Readable | undefined): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream!) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}
async function keysUnder(prefix: string): Promise<string[]> {
  const page = await raw.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (page.Contents ?? []).map((o) => o.Key!);
}
/** A source that yields `size` random bytes in 1 MiB chunks, never all in memory. */
function generated(size: number, seed = randomBytes(1 << 20)): Readable {
  let left = size;
  return Readable.from(
    (function* () {
      while (left > 0) {
        const n = Math.min(left, seed.length);
        left -= n;
        yield seed.subarray(0, n);
      }
    })(),
  );
}

describe("S3 blob store", () => {
  it("stages with md5, size and head computed on the way, commits under a key, reads whole and ranges", async () => {
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const staged = await store.stage(Readable.from([data.subarray(0, 1000), data.subarray(1000)]), { headBytes: 10 });
    expect(staged).toMatchObject({ size: data.length, md5: md5(data) });
    expect(Buffer.from(staged.head)).toEqual(data.subarray(0, 10));
    await store.commit(staged, "p1/a");
    expect(await keysUnder("staging/")).toEqual([]);
    // Buffer.equals: a deep toEqual over megabytes takes seconds.
    expect((await bytes(await store.read("p1/a"))).equals(data)).toBe(true);
    expect((await bytes(await store.read("p1/a", { start: 1_000_000, end: 1_999_999 }))).equals(data.subarray(1_000_000, 2_000_000))).toBe(true);
    expect(await bytes(await store.read("p1/a", { start: data.length - 1, end: data.length - 1 }))).toEqual(data.subarray(-1));
    expect(await store.stat("p1/a")).toMatchObject({ size: data.length });
    expect(await store.exists("p1/a")).toBe(true);
    await store.delete("p1/a");
    await store.delete("p1/a"); // twice is fine
    expect(await store.read("p1/a")).toBeUndefined();
    expect(await store.stat("p1/a")).toBeUndefined();
  });

  it("streams a multipart upload (40 MiB, 8 MiB parts) without holding it", async () => {
    const seed = randomBytes(1 << 20);
    const size = 40 * 1024 * 1024;
    const expected = createHash("md5");
    for (let i = 0; i < 40; i++) expected.update(seed);
    const written = await store.write("p1/big", generated(size, seed));
    expect(written).toEqual({ size, md5: expected.digest("hex") });
    expect((await store.stat("p1/big"))!.size).toBe(size);
    const tail = await bytes(await store.read("p1/big", { start: size - 100, end: size - 1 }));
    expect(tail).toEqual(seed.subarray(seed.length - 100));
  });

  it("signs part payloads except where TLS or loopback protects them; both ways store the same bytes", async () => {
    expect(transportProtectsPayload(undefined)).toBe(true); // AWS: https
    expect(transportProtectsPayload("https://s3.example.com")).toBe(true);
    expect(transportProtectsPayload("http://127.0.0.1:7480")).toBe(true);
    expect(transportProtectsPayload("http://localhost:9000")).toBe(true);
    expect(transportProtectsPayload("http://[::1]:9000")).toBe(true);
    expect(transportProtectsPayload("http://10.0.0.5:9000")).toBe(false);
    expect(transportProtectsPayload("http://minio.internal:9000")).toBe(false);
    expect(transportProtectsPayload("http://0.0.0.0:9000")).toBe(false);
    // 0.0.0.0 reaches this machine's RGW but does not count as loopback: the signed path.
    const signedEndpoint = endpoint.replace("127.0.0.1", "0.0.0.0");
    expect(transportProtectsPayload(signedEndpoint)).toBe(false);
    const signed = createS3BlobStore({ endpoint: signedEndpoint, bucket, region: "us-east-1", forcePathStyle: true, ...credentials });
    const seed = randomBytes(1 << 20);
    const size = 9 * 1024 * 1024; // two parts
    const expected = createHash("md5");
    for (let i = 0; i < 9; i++) expected.update(seed);
    const digest = expected.digest("hex");
    for (const each of [signed, store]) {
      const staged = await each.stage(generated(size, seed));
      expect(staged).toMatchObject({ size, md5: digest });
      await each.commit(staged, "p1/signing");
      expect(md5(await bytes(await store.read("p1/signing")))).toBe(digest);
    }
  });

  it("an upload past maxBytes or aborted leaves no object and no multipart upload behind", async () => {
    await expect(store.stage(generated(20 * 1024 * 1024), { maxBytes: 12 * 1024 * 1024 })).rejects.toBeInstanceOf(BlobTooLargeError);
    const controller = new AbortController();
    const slow = Readable.from(
      (async function* () {
        for (let i = 0; i < 30; i++) {
          if (i === 12) controller.abort();
          yield randomBytes(1 << 20);
        }
      })(),
    );
    await expect(store.write("p1/aborted", slow, { signal: controller.signal })).rejects.toThrow();
    expect(await keysUnder("staging/")).toEqual([]);
    expect(await store.exists("p1/aborted")).toBe(false);
    const open = await raw.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
    expect(open.Uploads ?? []).toEqual([]);
  });

  it("stages in place after the reservation commits: no staging object, commit to the same key is free, discard deletes it", async () => {
    let commitMarker!: () => void;
    const reserved = new Promise<void>((resolve) => (commitMarker = resolve));
    const data = randomBytes(9 * 1024 * 1024 + 5); // two parts
    const staging = store.stage(Readable.from([data]), { key: "p3/in-place", reserved });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await store.exists("p3/in-place")).toBe(false);
    commitMarker();
    const staged = await staging;
    expect(staged).toMatchObject({ key: "p3/in-place", size: data.length, md5: md5(data) });
    expect(await keysUnder("staging/")).toEqual([]);
    await store.commit(staged, "p3/in-place");
    expect((await bytes(await store.read("p3/in-place"))).equals(data)).toBe(true);
    await expect(store.commit(staged, "p3/other")).rejects.toThrow();
    await store.discard(staged);
    expect(await store.exists("p3/in-place")).toBe(false);
    await expect(store.stage(Readable.from([Buffer.from("x")]), { key: "p3/refused", reserved: Promise.reject(new Error("database down")) })).rejects.toThrow("database down");
    await expect(store.stage(generated(20 * 1024 * 1024), { key: "p3/big", reserved: Promise.resolve(), maxBytes: 12 * 1024 * 1024 })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await store.exists("p3/refused")).toBe(false);
    expect(await store.exists("p3/big")).toBe(false);
    const open = await raw.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
    expect(open.Uploads ?? []).toEqual([]);
  });

  it("discards staged bytes; sweepTemp removes stale staged objects", async () => {
    const staged = await store.stage(Readable.from([Buffer.from("x")]));
    await store.discard(staged);
    expect(await keysUnder("staging/")).toEqual([]);
    await store.stage(Readable.from([Buffer.from("left by a crash")]));
    expect(await store.sweepTemp(60_000)).toBe(0);
    expect(await store.sweepTemp(-1000)).toBe(1);
    expect(await keysUnder("staging/")).toEqual([]);
  });

  it("lists committed keys; refuses keys that are not blob keys", async () => {
    await store.write("p2/one", Readable.from([Buffer.from("1")]));
    await store.write("p2/two", Readable.from([Buffer.from("2")]));
    const keys: string[] = [];
    for await (const key of store.listKeys()) keys.push(key);
    expect(keys).toEqual(expect.arrayContaining(["p2/one", "p2/two"]));
    await expect(store.read("../escape")).rejects.toThrow();
  });

  it("check() names the problem of a misconfigured store", async () => {
    await expect(store.check()).resolves.toBeUndefined();
    const missing = createS3BlobStore({ endpoint, bucket: "no-such-bucket-here", region: "us-east-1", forcePathStyle: true, ...credentials });
    await expect(missing.check()).rejects.toThrow(/bucket "no-such-bucket-here" .* not usable: the bucket does not exist/);
    const wrongKeys = createS3BlobStore({ endpoint, bucket, region: "us-east-1", forcePathStyle: true, accessKeyId: "WRONG", secretAccessKey: "wrong" });
    await expect(wrongKeys.check()).rejects.toThrow(/not usable: access denied/);
    const nowhere = createS3BlobStore({ endpoint: "http://127.0.0.1:1", bucket, region: "us-east-1", forcePathStyle: true, ...credentials });
    await expect(nowhere.check()).rejects.toThrow(/not usable/);
    expect(() => s3SettingsFromEnv({})).toThrow(/ARCA_S3_BUCKET/);
    expect(s3SettingsFromEnv({ ARCA_S3_BUCKET: "b", ARCA_S3_ENDPOINT: "http://x" })).toMatchObject({ bucket: "b", region: "us-east-1", forcePathStyle: true });
  });
});
