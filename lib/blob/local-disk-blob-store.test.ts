import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BlobTooLargeError, DEFAULT_HEAD_BYTES, InvalidBlobKeyError, assertBlobKey } from "./blob-store";
import { createLocalDiskBlobStore, READ_HIGH_WATER_MARK, type LocalDiskBlobStore } from "./local-disk-blob-store";
import { processOwner } from "./process-owner";

let root: string;
let store: LocalDiskBlobStore;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "arca-blob-"));
  store = createLocalDiskBlobStore(path.join(root, "files"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function tempFiles(): Promise<string[]> {
  return readdir(path.join(root, "files", "tmp")).catch(() => []);
}

async function readAll(stream: Readable | undefined): Promise<Buffer> {
  if (!stream) throw new Error("no stream");
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Deterministic pseudo-random bytes, produced lazily in chunks. */
async function* noise(total: number, chunkSize = 64 * 1024): AsyncGenerator<Uint8Array> {
  let state = 12345;
  for (let sent = 0; sent < total; sent += chunkSize) {
    const chunk = Buffer.alloc(Math.min(chunkSize, total - sent));
    for (let i = 0; i < chunk.length; i++) {
      state = (state * 1103515245 + 12345) >>> 0;
      chunk[i] = state >>> 24;
    }
    yield chunk;
  }
}

/** A source that sends `chunks` and then stalls, like a client that stopped mid-upload. */
function stallingSource(chunks: Buffer[]): Readable {
  const source = new Readable({ read() {} });
  for (const chunk of chunks) source.push(chunk);
  return source;
}

const ALPHABET = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

describe("local disk blob store", () => {
  it("round-trips bytes, stat, exists and delete", async () => {
    const written = await store.write("project-1/file.txt", Readable.from([Buffer.from("hello "), Buffer.from("world")]));
    expect(written).toEqual({ size: 11, md5: createHash("md5").update("hello world").digest("hex") });
    expect((await readAll(await store.read("project-1/file.txt"))).toString()).toBe("hello world");
    expect(await store.exists("project-1/file.txt")).toBe(true);
    const stat = await store.stat("project-1/file.txt");
    expect(stat?.size).toBe(11);
    expect(stat?.modifiedAt).toBeInstanceOf(Date);

    await store.delete("project-1/file.txt");
    expect(await store.exists("project-1/file.txt")).toBe(false);
    await expect(store.delete("project-1/file.txt")).resolves.toBeUndefined();
    expect(await tempFiles()).toEqual([]);
  });

  it("reports a missing blob as a value", async () => {
    expect(await store.read("nope")).toBeUndefined();
    expect(await store.read("nope", { start: 0, end: 1 })).toBeUndefined();
    expect(await store.stat("nope")).toBeUndefined();
    expect(await store.exists("nope")).toBe(false);
  });

  it("computes md5 and size of a multi-MiB stream on the fly", async () => {
    const total = 5 * 1024 * 1024 + 123;
    const expected = createHash("md5");
    for await (const chunk of noise(total)) expected.update(chunk);

    const staged = await store.stage(Readable.from(noise(total)));
    expect(staged.size).toBe(total);
    expect(staged.md5).toBe(expected.digest("hex"));

    const first = (await noise(DEFAULT_HEAD_BYTES).next()).value as Uint8Array;
    expect(Buffer.from(staged.head)).toEqual(Buffer.from(first));

    await store.commit(staged, "big");
    expect((await store.stat("big"))?.size).toBe(total);
    const back = createHash("md5");
    for await (const chunk of (await store.read("big"))!) back.update(chunk as Buffer);
    expect(back.digest("hex")).toBe(staged.md5);
  });

  it("captures the head across small chunks and stops at headBytes", async () => {
    const chunks = Array.from({ length: 10 }, (_, i) => Buffer.alloc(3, i));
    const staged = await store.stage(Readable.from(chunks), { headBytes: 7 });
    expect(Buffer.from(staged.head)).toEqual(Buffer.from([0, 0, 0, 1, 1, 1, 2]));
    const short = await store.stage(Readable.from([Buffer.from("ab")]), { headBytes: 7 });
    expect(Buffer.from(short.head).toString()).toBe("ab");
    await store.discard(staged);
    await store.discard(short);
  });

  it("accepts async iterables and empty sources", async () => {
    async function* parts() {
      yield new TextEncoder().encode("a");
      yield new TextEncoder().encode("b");
    }
    expect((await store.write("iter", parts())).size).toBe(2);
    const empty = await store.write("empty", Readable.from([]));
    expect(empty).toEqual({ size: 0, md5: "d41d8cd98f00b204e9800998ecf8427e" });
    expect((await readAll(await store.read("empty"))).length).toBe(0);
  });

  it("stages invisibly, then commits under a key", async () => {
    const staged = await store.stage(Readable.from([Buffer.from("pending")]));
    expect(await store.exists("k")).toBe(false);
    expect(await tempFiles()).toHaveLength(1);
    await store.commit(staged, "k");
    expect((await readAll(await store.read("k"))).toString()).toBe("pending");
    expect(await tempFiles()).toEqual([]);
    // committed bytes are gone from staging: a second commit has nothing to move
    await expect(store.commit(staged, "k2")).rejects.toThrow();
  });

  it("stages in place: nothing under the key before the reservation commits, then the bytes there with no temp copy", async () => {
    let commitMarker!: () => void;
    const reserved = new Promise<void>((resolve) => (commitMarker = resolve));
    const staging = store.stage(Readable.from([Buffer.from("in place")]), { key: "p/in-place", reserved });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(existsSync(store.pathOf("p/in-place"))).toBe(false);
    commitMarker();
    const staged = await staging;
    expect(staged).toMatchObject({ key: "p/in-place", size: 8, md5: createHash("md5").update("in place").digest("hex") });
    expect(Buffer.from(staged.head).toString()).toBe("in place");
    expect(await tempFiles()).toEqual([]);
    expect((await readAll(await store.read("p/in-place"))).toString()).toBe("in place");
    await store.commit(staged, "p/in-place"); // nothing left to do
    expect((await readAll(await store.read("p/in-place"))).toString()).toBe("in place");
    await expect(store.commit(staged, "p/elsewhere")).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await store.discard(staged);
    await store.discard(staged);
    expect(await store.exists("p/in-place")).toBe(false);
  });

  it("in place: a failed reservation writes nothing; too large, aborted or broken leaves nothing under the key", async () => {
    const source = Readable.from([Buffer.from("x")]);
    await expect(store.stage(source, { key: "p/refused", reserved: Promise.reject(new Error("database down")) })).rejects.toThrow("database down");
    expect(await store.exists("p/refused")).toBe(false);

    const big = Readable.from([Buffer.alloc(1000), Buffer.alloc(1000), Buffer.alloc(1000)]);
    await expect(store.stage(big, { key: "p/big", reserved: Promise.resolve(), maxBytes: 2500 })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await store.exists("p/big")).toBe(false);

    const controller = new AbortController();
    const stalling = stallingSource([Buffer.alloc(1000, 1)]);
    const writing = store.stage(stalling, { key: "p/aborted", reserved: Promise.resolve(), signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await store.exists("p/aborted")).toBe(true); // it really was mid-stream, in place
    controller.abort();
    await expect(writing).rejects.toMatchObject({ name: "AbortError" });
    expect(await store.exists("p/aborted")).toBe(false);

    async function* broken() {
      yield Buffer.alloc(10);
      throw new Error("connection reset");
    }
    await expect(store.stage(broken(), { key: "p/broken" })).rejects.toThrow("connection reset");
    expect(await store.exists("p/broken")).toBe(false);
    expect(await tempFiles()).toEqual([]);
  });

  it("makes the temp directory again when it was removed under a running store", async () => {
    await store.write("before", Readable.from([Buffer.from("one")]));
    await rm(path.join(root, "files", "tmp"), { recursive: true });
    const staged = await store.stage(Readable.from([Buffer.from("two")]));
    await store.commit(staged, "after");
    expect((await readAll(await store.read("after"))).toString()).toBe("two");
  });

  it("discards staged bytes, twice without complaint", async () => {
    const staged = await store.stage(Readable.from([Buffer.from("nope")]));
    await store.discard(staged);
    await store.discard(staged);
    expect(await tempFiles()).toEqual([]);
  });

  it("replaces a blob on commit under an existing key", async () => {
    await store.write("same", Readable.from([Buffer.from("old")]));
    await store.write("same", Readable.from([Buffer.from("new!")]));
    expect((await readAll(await store.read("same"))).toString()).toBe("new!");
  });

  it("aborting mid-stream rejects and leaves no temp file", async () => {
    const controller = new AbortController();
    const source = stallingSource([Buffer.alloc(1000, 1)]);
    const writing = store.write("aborted", source, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await tempFiles()).toHaveLength(1); // it really was mid-stream
    controller.abort();
    await expect(writing).rejects.toMatchObject({ name: "AbortError" });
    expect(await tempFiles()).toEqual([]);
    expect(await store.exists("aborted")).toBe(false);
    expect(source.destroyed).toBe(true);
  });

  it("an already aborted signal writes nothing", async () => {
    await expect(
      store.stage(Readable.from([Buffer.from("x")]), { signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(await tempFiles()).toEqual([]);
  });

  it("exceeding maxBytes rejects with BlobTooLargeError and leaves no temp file", async () => {
    const source = Readable.from([Buffer.alloc(1000), Buffer.alloc(1000), Buffer.alloc(1000)]);
    const error = await store.write("big", source, { maxBytes: 2500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlobTooLargeError);
    expect((error as BlobTooLargeError).maxBytes).toBe(2500);
    expect(await tempFiles()).toEqual([]);
    expect(await store.exists("big")).toBe(false);
  });

  it("exactly maxBytes is fine", async () => {
    const written = await store.write("fits", Readable.from([Buffer.alloc(1000), Buffer.alloc(1500)]), { maxBytes: 2500 });
    expect(written.size).toBe(2500);
  });

  it("a failing source rejects with its error and leaves no temp file", async () => {
    async function* broken() {
      yield Buffer.alloc(10);
      throw new Error("connection reset");
    }
    await expect(store.write("broken", broken())).rejects.toThrow("connection reset");
    expect(await tempFiles()).toEqual([]);
    expect(await store.exists("broken")).toBe(false);
  });

  it("reads exact byte ranges with 1 MiB chunks", async () => {
    await store.write("abc", Readable.from([ALPHABET]));
    expect(await readAll(await store.read("abc", { start: 10, end: 19 }))).toEqual(ALPHABET.subarray(10, 20));
    expect(await readAll(await store.read("abc", { start: 0, end: 0 }))).toEqual(ALPHABET.subarray(0, 1));
    expect(await readAll(await store.read("abc", { start: 255, end: 255 }))).toEqual(ALPHABET.subarray(255));
    expect(await readAll(await store.read("abc", { start: 250, end: 1000 }))).toEqual(ALPHABET.subarray(250));
    const stream = (await store.read("abc"))!;
    expect(stream.readableHighWaterMark).toBe(READ_HIGH_WATER_MARK);
    expect(READ_HIGH_WATER_MARK).toBe(1024 * 1024);
    stream.destroy();
  });

  it("refuses nonsense ranges", async () => {
    await store.write("abc", Readable.from([ALPHABET]));
    await expect(store.read("abc", { start: 5, end: 4 })).rejects.toThrow(RangeError);
    await expect(store.read("abc", { start: -1, end: 4 })).rejects.toThrow(RangeError);
    await expect(store.read("abc", { start: 0.5, end: 4 })).rejects.toThrow(RangeError);
  });

  it("fans keys out into two levels of hashed directories inside the root", () => {
    const file = store.pathOf("project/abc.bin");
    const relative = path.relative(path.join(root, "files"), file).split(path.sep);
    expect(relative).toHaveLength(4);
    expect(relative[0]).toMatch(/^[0-9a-f]{2}$/);
    expect(relative[1]).toMatch(/^[0-9a-f]{2}$/);
    expect(relative.slice(2)).toEqual(["project", "abc.bin"]);
  });

  const badKeys = [
    "",
    ".",
    "..",
    "../x",
    "a/../../x",
    "a/./b",
    "/etc/passwd",
    "a//b",
    "a/",
    "a\\b",
    "..\\..\\x",
    "a\0b",
    "C:x",
    "a b",
    "é",
    "x".repeat(513),
  ];

  it.each(badKeys)("refuses the key %j everywhere", async (key) => {
    expect(() => assertBlobKey(key)).toThrow(InvalidBlobKeyError);
    expect(() => store.pathOf(key)).toThrow(InvalidBlobKeyError);
    const source = Readable.from([Buffer.from("x")]);
    await expect(store.write(key, source)).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.read(key)).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.stat(key)).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.exists(key)).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.delete(key)).rejects.toBeInstanceOf(InvalidBlobKeyError);
    const staged = await store.stage(Readable.from([Buffer.from("y")]));
    await expect(store.commit(staged, key)).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await store.discard(staged);
    expect(await tempFiles()).toEqual([]);
    expect(await readdir(root)).toEqual(["files"]); // nothing landed beside the store
  });

  it.each(["a", "A-Z_0.9", "project/2024/file.tar.gz", "..a", "a..", ".hidden"])("accepts the key %j", (key) => {
    expect(() => assertBlobKey(key)).not.toThrow();
  });

  it("refuses a forged staged handle", async () => {
    const forged = { id: "../../../evil", size: 0, md5: "", head: new Uint8Array() };
    await expect(store.commit(forged, "k")).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.discard(forged)).rejects.toBeInstanceOf(InvalidBlobKeyError);
  });

  it("sweeps stale temp files only", async () => {
    const stale = await store.stage(Readable.from([Buffer.from("old")]));
    const fresh = await store.stage(Readable.from([Buffer.from("new")]));
    const tempDir = path.join(root, "files", "tmp");
    const hourAgo = new Date(Date.now() - 3600_000);
    await utimes(path.join(tempDir, stale.id), hourAgo, hourAgo);
    await writeFile(path.join(tempDir, "not-ours.txt"), "keep");

    expect(await store.sweepTemp(60_000)).toBe(1);
    expect((await tempFiles()).sort()).toEqual([fresh.id, "not-ours.txt"].sort());
    await store.commit(fresh, "fresh");
    expect(await store.exists("fresh")).toBe(true);
  });

  it("removes at once the temp files of a dead process of this host, and only those", async () => {
    const mine = await store.stage(Readable.from([Buffer.from("live")]));
    expect(mine.id).toContain(`.${processOwner()}.part`);
    const deadPid = spawnSync("true").pid!;
    const dead = `${"0".repeat(8)}-0000-0000-0000-${"0".repeat(12)}.${`${processOwner().split("-")[0]}-${deadPid}`}.part`;
    const otherHost = `${"1".repeat(8)}-0000-0000-0000-${"0".repeat(12)}.ffffffff-${deadPid}.part`;
    const legacy = `${"2".repeat(8)}-0000-0000-0000-${"0".repeat(12)}.part`;
    for (const name of [dead, otherHost, legacy]) await writeFile(path.join(root, "files", "tmp", name), "x");

    expect(await store.sweepDeadTemp()).toBe(1);
    expect((await tempFiles()).sort()).toEqual([mine.id, otherHost, legacy].sort());
  });

  it("lists every committed key and nothing else", async () => {
    const keys = ["a", "p/1", "p/deep/2"];
    for (const key of keys) await store.write(key, Readable.from([Buffer.from(key)]));
    await store.stage(Readable.from([Buffer.from("staged")]));
    await writeFile(path.join(root, "files", "stray.txt"), "not a blob");
    const listed: string[] = [];
    for await (const key of store.listKeys()) listed.push(key);
    expect(listed.sort()).toEqual(keys);
  });

  it("sweeping before anything was staged finds nothing", async () => {
    expect(await store.sweepTemp(0)).toBe(0);
    expect(existsSync(path.join(root, "files", "tmp"))).toBe(false);
  });

  it("writes concurrently to different keys", async () => {
    const keys = Array.from({ length: 8 }, (_, i) => `c/${i}`);
    await Promise.all(keys.map((key) => store.write(key, Readable.from(noise(200_000, 10_000)))));
    for (const key of keys) expect((await store.stat(key))?.size).toBe(200_000);
  });

  it("pulls from the source with backpressure instead of draining it into memory", async () => {
    // Each time the source is asked for a chunk, compare what it has produced with what is on
    // disk: an implementation that buffered the stream would run ahead by the whole 16 MiB.
    const chunk = Buffer.alloc(64 * 1024, 7);
    const total = 256;
    const tempDir = path.join(root, "files", "tmp");
    let maxAhead = 0;
    async function* source() {
      for (let i = 0; i < total; i++) {
        const [name] = await readdir(tempDir).catch(() => []);
        const onDisk = name ? (await stat(path.join(tempDir, name)).catch(() => ({ size: 0 }))).size : 0;
        maxAhead = Math.max(maxAhead, i * chunk.length - onDisk);
        yield chunk;
      }
    }
    const staged = await store.stage(source());
    expect(staged.size).toBe(total * chunk.length);
    expect(maxAhead).toBeLessThan(4 * 1024 * 1024);
    await store.discard(staged);
  });
});
