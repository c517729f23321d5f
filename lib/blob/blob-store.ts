/**
 * Where file bytes live: a key-value store of immutable blobs, small enough that an S3 backend
 * can implement it next to the local-disk one (CONTRACT §6, STYLE "lib/blob/").
 *
 * Uploads are two-phase because the caller must look at the bytes before they become visible:
 * `stage` streams into a private temporary place while computing size and md5 and keeping the
 * first bytes (for content-type detection); the caller then checks type and limits and either
 * `commit`s under a key or `discard`s. `write` is both phases in one call.
 *
 * A caller that has already announced the final key for deletion (a pending marker that deletes
 * the bytes unless a record names them) may stage *in place* (`StageOptions.key`): the bytes go
 * straight to that key, with no temporary copy, and `commit` to the same key has nothing left
 * to do. Uploads take this path; it saves a rename and a directory sync on disk and a server-side
 * copy on S3.
 */
import type { Readable } from "node:stream";

/** A Node stream or any async iterable of bytes (busboy's file stream, `Readable.fromWeb(...)`). */
export type BlobSource = Readable | AsyncIterable<Uint8Array>;

export interface WriteOptions {
  /** Aborting rejects with an AbortError and leaves no bytes behind. */
  signal?: AbortSignal;
  /** More bytes than this rejects with BlobTooLargeError and leaves no bytes behind. */
  maxBytes?: number;
}

export interface StageOptions extends WriteOptions {
  /** How many leading bytes to keep in `StagedBlob.head`; DEFAULT_HEAD_BYTES if unset. */
  headBytes?: number;
  /**
   * Stage in place under this key (see above). Nothing appears under it before `reserved`
   * resolves (the caller's deletion marker is committed); a rejected `reserved` fails the stage.
   */
  key?: string;
  reserved?: Promise<unknown>;
}

/** Enough for content-type detection (file-type samples 4100 bytes). */
export const DEFAULT_HEAD_BYTES = 4100;

export interface WrittenBlob {
  size: number;
  /** Lower-case hex, computed while the bytes streamed past. */
  md5: string;
}

export interface StagedBlob extends WrittenBlob {
  /** The store's own name for the pending bytes; opaque to callers. */
  readonly id: string;
  /** The first `headBytes` bytes (fewer if the blob is shorter). */
  readonly head: Uint8Array;
  /** Set when staged in place: the key the bytes already sit under, durably. */
  readonly key?: string;
}

export interface BlobStat {
  size: number;
  modifiedAt: Date;
}

/** Inclusive byte positions, the shape of `ByteRange` from lib/http/range. */
export interface BlobRange {
  start: number;
  end: number;
}

export interface BlobStore {
  stage(source: BlobSource, options?: StageOptions): Promise<StagedBlob>;
  /**
   * Makes staged bytes visible under `key`, replacing whatever was there, atomically; nothing to
   * do for bytes staged in place under `key` (another key is a programming error).
   */
  commit(staged: StagedBlob, key: string): Promise<void>;
  /** Drops staged bytes (in place: the key's bytes); discarding twice is fine. */
  discard(staged: StagedBlob): Promise<void>;
  write(key: string, source: BlobSource, options?: WriteOptions): Promise<WrittenBlob>;
  /** The bytes, or the inclusive range of them; undefined when there is no such blob. */
  read(key: string, range?: BlobRange): Promise<Readable | undefined>;
  stat(key: string): Promise<BlobStat | undefined>;
  exists(key: string): Promise<boolean>;
  /** Deleting a missing blob is fine: deletes are retried by sweepers and queues. */
  delete(key: string): Promise<void>;
  /**
   * Removes staged bytes older than this, left by a crash between stage and commit/discard.
   * Returns how many went. Pick an age far above the longest upload stall.
   */
  sweepTemp(olderThanMs: number): Promise<number>;
  /** Removes staged bytes whose writing process is gone (start-up, after a crash); returns how many. */
  sweepDeadTemp(): Promise<number>;
  /** Every committed key, in no particular order. */
  listKeys(): AsyncIterable<string>;
  /**
   * The local file behind a key, when the store has one (the local disk), for serving it the
   * fastest way (straight into the socket); stores without files leave it out.
   */
  pathOf?(key: string): string;
}

/**
 * For `commit`: true when the bytes were staged in place under `key` (nothing left to do);
 * throws for bytes staged in place under another key.
 */
export function stagedInPlace(staged: StagedBlob, key: string): boolean {
  if (staged.key === undefined) return false;
  if (staged.key !== key) throw new InvalidBlobKeyError(key, `staged in place under ${staged.key}, not`);
  return true;
}

/** Thrown (rejected) when a blob outgrows `maxBytes`; the caller answers 413. */
export class BlobTooLargeError extends Error {
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super(`Blob exceeds ${maxBytes} bytes`);
    this.name = "BlobTooLargeError";
    this.maxBytes = maxBytes;
  }
}

/** A key that could name something outside the store; a programming error, never user input. */
export class InvalidBlobKeyError extends Error {
  readonly key: string;
  constructor(key: string, reason = "invalid blob key") {
    super(`${reason}: ${JSON.stringify(key)}`);
    this.name = "InvalidBlobKeyError";
    this.key = key;
  }
}

const SEGMENT = /^[A-Za-z0-9._-]+$/;

/**
 * Keys are `/`-separated segments of `[A-Za-z0-9._-]`, neither `.` nor `..`, at most 512
 * characters: valid as S3 keys and as relative paths on any file system, with no way to spell
 * `..`, an absolute path, a drive, a backslash or a NUL. Both stores apply the same rule so a
 * key never works on one and fails on the other.
 */
export function assertBlobKey(key: string): void {
  if (typeof key !== "string" || key.length === 0 || key.length > 512) throw new InvalidBlobKeyError(String(key));
  for (const segment of key.split("/")) {
    if (!SEGMENT.test(segment) || segment === "." || segment === "..") throw new InvalidBlobKeyError(key);
  }
}
