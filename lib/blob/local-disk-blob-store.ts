/**
 * BlobStore on the local file system, under one root (ARCA_DATA_DIR/...):
 *
 *   <root>/tmp/<uuid>.<owner>.part   staged bytes, same file system as the blobs so rename is
 *                                    atomic; <owner> (lib/blob/process-owner.ts) names the
 *                                    process writing them, so a dead one's are known at once
 *                                    (uploads stage in place instead, under their final key)
 *   <root>/ab/cd/<key>          committed blobs, fanned out by a hash of the key
 *
 * Durability: the file is fsynced before the rename and the directory after it, so after a
 * crash a key names either the complete old bytes or the complete new ones, never a torn file.
 * Staged in place (a fresh key its caller announced for deletion, BlobStore header), the file is
 * created under its key and synced with its directory before `stage` resolves; a crash
 * mid-write leaves a torn file no record names, which that announcement removes.
 */
import { createHash, randomUUID } from "node:crypto";
import { close as fsClose, createWriteStream, fsync as fsFsync, open as fsOpen, write as fsWrite, writev as fsWritev } from "node:fs";
import { promisify } from "node:util";
import { mkdir, open, readdir, rename, rm, stat as fsStat, unlink } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { blobMeter } from "./blob-meter";
import {
  assertBlobKey,
  DEFAULT_HEAD_BYTES,
  InvalidBlobKeyError,
  stagedInPlace,
  type BlobRange,
  type BlobSource,
  type BlobStat,
  type BlobStore,
  type StagedBlob,
  type StageOptions,
  type WriteOptions,
  type WrittenBlob,
} from "./blob-store";
import { isDeadOwner, OWNER_PATTERN, processOwner } from "./process-owner";

export interface LocalDiskBlobStore extends BlobStore {
  /**
   * The file behind a key, for serving it another way (sendfile, nginx X-Accel-Redirect).
   * Throws InvalidBlobKeyError for a key that could leave the root.
   */
  pathOf(key: string): string;
}

/**
 * 1 MiB reads: with the default 64 KiB chunks a download through Fetch `Response` ran at less
 * than half the speed (RECIPES, "Downloads").
 */
export const READ_HIGH_WATER_MARK = 1 << 20;

// Fewer, larger write(2) calls; still a bounded amount of memory per upload.
const WRITE_HIGH_WATER_MARK = 1 << 20;

// `<uuid>.part` is the name before owners were recorded: such files go by age only.
const TEMP_NAME = new RegExp(`^[0-9a-f-]{36}(?:\\.(${OWNER_PATTERN}))?\\.part$`);
const FAN_DIR = /^[0-9a-f]{2}$/;

const openFd = promisify(fsOpen);
const closeFd = promisify(fsClose);

export function createLocalDiskBlobStore(rootDir: string): LocalDiskBlobStore {
  const root = path.resolve(rootDir);
  const tempDir = path.join(root, "tmp");

  function pathOf(key: string): string {
    assertBlobKey(key);
    // A hash spreads keys evenly whatever they look like (`<project>/<id>` keys would otherwise
    // pile up under a few prefixes); 65,536 leaf directories keep each one small.
    const fan = createHash("sha256").update(key).digest("hex");
    const full = path.join(root, fan.slice(0, 2), fan.slice(2, 4), ...key.split("/"));
    // The key rule already forbids escaping; this is the second lock on the same door.
    if (!full.startsWith(root + path.sep)) throw new InvalidBlobKeyError(key);
    return full;
  }

  function tempPathOf(staged: StagedBlob): string {
    if (!TEMP_NAME.test(staged.id)) throw new InvalidBlobKeyError(staged.id, "not a staged blob of this store");
    return path.join(tempDir, staged.id);
  }

  async function stage(source: BlobSource, options: StageOptions = {}): Promise<StagedBlob> {
    const { signal, maxBytes = Number.POSITIVE_INFINITY, headBytes = DEFAULT_HEAD_BYTES, key } = options;
    if (key !== undefined) return stageInPlace(key, source, options);
    const id = `${randomUUID()}.${processOwner()}.part`;
    const tempPath = path.join(tempDir, id);

    // Checked per chunk, before the chunk is written: at most one chunk past the limit is ever
    // read, and none of it reaches the disk.
    const meter = blobMeter(maxBytes, headBytes);
    try {
      // `flush` fsyncs before the close that ends the pipeline: the bytes are on disk before
      // anyone can commit them.
      // The temp directory is made when missing (first upload, or removed under a running
      // server) rather than before every upload.
      const handle = await open(tempPath, "wx").catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
        await mkdir(tempDir, { recursive: true });
        return open(tempPath, "wx");
      });
      await pipeline(source, meter.stream, createWriteStream(tempPath, { fd: handle, flush: true, highWaterMark: WRITE_HIGH_WATER_MARK }), { signal });
    } catch (error) {
      await rm(tempPath, { force: true });
      throw error;
    }
    return { id, ...meter.result() };
  }

  /**
   * The bytes straight to their key. The bytes flow (and are hashed) at once; the file is
   * created once the caller's marker has committed and the directories exist, the first bytes
   * waiting in the write stream's buffer until then; the directories are synced while the rest
   * is written (the entry exists from the `open`), so the wait after the last byte is the file's
   * own fsync.
   */
  async function stageInPlace(key: string, source: BlobSource, options: StageOptions): Promise<StagedBlob> {
    const { signal, maxBytes = Number.POSITIVE_INFINITY, headBytes = DEFAULT_HEAD_BYTES, reserved } = options;
    const to = pathOf(key);
    const ready = Promise.all([reserved, makeDirectory(path.dirname(to))]);
    ready.catch(() => undefined); // the stream's open reports it
    let synced: Promise<unknown> = Promise.resolve();
    let opening: Promise<unknown> = Promise.resolve();
    // `flush` calls the implementation's fsync too (@types/node leaves it out).
    const gatedFs = {
      open(openPath: string, flags: string, mode: number, callback: (error: Error | null, fd?: number) => void) {
        // A stream destroyed while its open is pending does not wait for it: a file opened for
        // a stream already gone is removed here, never left behind.
        const gone = () => new Error("upload ended before its file was opened");
        opening = ready.then(async ([, dirs]) => {
          if (file.destroyed) throw gone();
          const fd = await openFd(openPath, flags, mode);
          if (file.destroyed) {
            await closeFd(fd).catch(() => undefined);
            await rm(openPath, { force: true });
            throw gone();
          }
          synced = Promise.all(dirs.map(syncDir));
          synced.catch(() => undefined);
          return fd;
        });
        opening.then((fd) => callback(null, fd as number), (error: Error) => callback(error));
      },
      write: fsWrite,
      writev: fsWritev,
      close: fsClose,
      fsync: fsFsync,
    };
    const file = createWriteStream(to, { flags: "wx", flush: true, highWaterMark: WRITE_HIGH_WATER_MARK, fs: gatedFs });
    // Hashed behind the bytes: the file's fsync after its last write overlaps the md5.
    const meter = blobMeter(maxBytes, headBytes, { deferDigest: true });
    try {
      await pipeline(source, meter.stream, file, { signal });
      await Promise.all([synced, meter.digested()]);
    } catch (error) {
      await opening.catch(() => undefined);
      await rm(to, { force: true });
      throw error;
    }
    return { id: key, key, ...meter.result() };
  }

  /**
   * Makes `dir` and answers the directories whose entries must be synced for a new file in it
   * to survive a crash: `dir` itself and every parent of a directory this call created.
   * Synced together: concurrent fsyncs share a journal commit (a new leaf under the 65,536 fan
   * directories is the common case, four directories).
   */
  async function makeDirectory(dir: string): Promise<string[]> {
    const firstCreated = await mkdir(dir, { recursive: true });
    const dirs = [dir];
    if (firstCreated) {
      const stop = path.dirname(firstCreated);
      for (let d = path.dirname(dir); ; d = path.dirname(d)) {
        dirs.push(d);
        if (d === stop || d === path.dirname(d)) break;
      }
    }
    return dirs;
  }

  async function commit(staged: StagedBlob, key: string): Promise<void> {
    if (stagedInPlace(staged, key)) return;
    const from = tempPathOf(staged);
    const to = pathOf(key);
    const dirs = await makeDirectory(path.dirname(to));
    await rename(from, to);
    await Promise.all(dirs.map(syncDir));
  }

  async function discard(staged: StagedBlob): Promise<void> {
    await rm(staged.key !== undefined ? pathOf(staged.key) : tempPathOf(staged), { force: true });
  }

  async function write(key: string, source: BlobSource, options: WriteOptions = {}): Promise<WrittenBlob> {
    pathOf(key); // refuse a bad key before consuming a byte
    const staged = await stage(source, { ...options, headBytes: 0 });
    try {
      await commit(staged, key);
    } catch (error) {
      await discard(staged).catch(() => undefined);
      throw error;
    }
    return { size: staged.size, md5: staged.md5 };
  }

  async function read(key: string, range?: BlobRange): Promise<Readable | undefined> {
    const file = pathOf(key);
    if (range && !(Number.isSafeInteger(range.start) && Number.isSafeInteger(range.end) && 0 <= range.start && range.start <= range.end)) {
      throw new RangeError(`invalid blob range ${JSON.stringify(range)}`);
    }
    // Opening first turns a missing blob into a value instead of a stream that errors later.
    const handle = await open(file, "r").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
      throw error;
    });
    if (!handle) return undefined;
    return handle.createReadStream({ start: range?.start, end: range?.end, highWaterMark: READ_HIGH_WATER_MARK });
  }

  async function stat(key: string): Promise<BlobStat | undefined> {
    const file = pathOf(key);
    try {
      const s = await fsStat(file);
      return s.isFile() ? { size: s.size, modifiedAt: s.mtime } : undefined;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async function exists(key: string): Promise<boolean> {
    return (await stat(key)) !== undefined;
  }

  async function remove(key: string): Promise<void> {
    const file = pathOf(key);
    try {
      await unlink(file);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }

  async function sweepTemp(olderThanMs: number): Promise<number> {
    const cutoff = Date.now() - olderThanMs;
    let names: string[];
    try {
      names = await readdir(tempDir);
    } catch (error) {
      if (isMissing(error)) return 0;
      throw error;
    }
    let removed = 0;
    for (const name of names) {
      if (!TEMP_NAME.test(name)) continue;
      const file = path.join(tempDir, name);
      try {
        // A live upload touches its file with every write, so only abandoned ones look old.
        if ((await fsStat(file)).mtimeMs >= cutoff) continue;
        await unlink(file);
        removed++;
      } catch (error) {
        if (!isMissing(error)) throw error; // committed or discarded meanwhile
      }
    }
    return removed;
  }

  async function sweepDeadTemp(): Promise<number> {
    let removed = 0;
    for (const name of await readdir(tempDir).catch(() => [] as string[])) {
      const owner = TEMP_NAME.exec(name)?.[1];
      if (!owner || !isDeadOwner(owner)) continue;
      await rm(path.join(tempDir, name), { force: true });
      removed++;
    }
    return removed;
  }

  async function* listKeys(): AsyncIterable<string> {
    const entries = (dir: string) => readdir(dir, { withFileTypes: true }).catch(() => []);
    async function* walk(dir: string, segments: string[]): AsyncIterable<string> {
      for (const entry of await entries(dir)) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) yield* walk(full, [...segments, entry.name]);
        else if (entry.isFile()) {
          const key = [...segments, entry.name].join("/");
          // Only files that sit exactly where their key maps: anything else is not a blob of ours.
          try {
            if (pathOf(key) === full) yield key;
          } catch {
            // not a valid key
          }
        }
      }
    }
    for (const a of await entries(root)) {
      if (!a.isDirectory() || !FAN_DIR.test(a.name)) continue;
      for (const b of await entries(path.join(root, a.name))) {
        if (b.isDirectory() && FAN_DIR.test(b.name)) yield* walk(path.join(root, a.name, b.name), []);
      }
    }
  }

  return { pathOf, stage, commit, discard, write, read, stat, exists, delete: remove, sweepTemp, sweepDeadTemp, listKeys };
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } catch (error) {
    // Some file systems cannot fsync a directory; the rename is still atomic there.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EINVAL" && code !== "EISDIR" && code !== "EPERM") throw error;
  } finally {
    await handle.close();
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
