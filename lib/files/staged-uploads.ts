import { PassThrough, type Readable } from "node:stream";
import { BlobTooLargeError, type StagedBlob } from "../blob/blob-store";
import { config } from "../config";
import { AppError, badRequest, payloadTooLarge, validationError } from "../errors";
import { CONTENT_TYPE_HEAD_BYTES, detectContentType } from "./detect-content-type";
import { isAllowedContentType } from "./allowed-content-types";
import { fileBlobStore } from "./file-blob-store";
import { releaseBlobKeys, reserveBlobKey } from "./upload-files";

/** One file part streamed to a temp file, its type decided from its first bytes. */
export interface StagedFile {
  /** The part name: a dotted property path (`file` for a direct `_files` upload). */
  field: string;
  name: string;
  contentType: string;
  staged: StagedBlob;
  /** Position of the part in the body: parts finish staging in any order. */
  seq: number;
  /** The part name's `[n]` (`photos[1]`): the file's place among its property's files. */
  index?: number;
  /** Staged in place (`staged.key`): the id of that key's deletion marker (lib/files/upload-files.ts). */
  markerId?: string;
}

/**
 * Collects the file parts of one upload (fed by lib/http/upload-body.ts, part by part):
 * each part is streamed into `blobStore.stage` (md5, size and the head computed on the fly; the
 * part is never buffered), then typed and checked against the allowed list and ARCA_MAX_FILE_SIZE.
 * Given the project, each part's blob key is reserved as the part begins and its bytes are
 * staged in place under it (the marker commits while they stream); a part not kept gives its
 * reservation back.
 *
 * The first failure (422 type, 413 size, client abort) is reported at once through `failed`, so
 * the handler can answer without waiting for the rest of a huge body; later parts are drained.
 * `discard()` removes every temp file, including those still being written.
 */
export class StagedUploads {
  readonly files: StagedFile[] = [];
  readonly failed: Promise<never>;
  private readonly pending: Promise<void>[] = [];
  private readonly taps = new Set<PassThrough>();
  private parts = 0;
  private failure: Error | undefined;
  private rejectFailed!: (error: Error) => void;
  private readonly store = fileBlobStore();
  private readonly maxBytes = config().maxFileSize;

  constructor(
    private readonly signal?: AbortSignal,
    private readonly projectId?: string,
  ) {
    this.failed = new Promise<never>((_, reject) => (this.rejectFailed = reject));
    this.failed.catch(() => undefined);
  }

  /** How many file parts the body had. */
  get count(): number {
    return this.parts;
  }

  /**
   * Takes one file part (the HTTP layer's multipart reader calls it per part): resolves once the
   * part is on disk, or rejects with the reason it is not.
   */
  readonly onFile = (field: string, fileName: string, stream: Readable, info?: { index?: number }): Promise<void> => {
    if (this.failure) {
      stream.resume();
      return Promise.resolve();
    }
    // A tap between busboy and the store: when staging fails, the store destroys the tap, and
    // busboy's own stream is drained instead of stalling the parser on a destroyed stream.
    const seq = this.parts++;
    const tap = new PassThrough({ highWaterMark: 1 << 20 });
    this.taps.add(tap);
    // The store attaches its listeners only once it starts reading (after an await); a tap
    // destroyed by `discard()` before that emitted an unhandled 'error' and killed the process.
    // The store still sees the destruction through its pipeline.
    tap.on("error", () => undefined);
    stream.on("error", (error) => tap.destroy(error));
    stream.pipe(tap);
    const reservation = this.projectId === undefined ? undefined : reserveBlobKey(this.projectId);
    reservation?.marker.catch(() => undefined); // rejected: the stage fails with the same error
    const work = (async () => {
      try {
        const staged = await this.store.stage(tap, {
          signal: this.signal,
          maxBytes: this.maxBytes,
          headBytes: CONTENT_TYPE_HEAD_BYTES,
          key: reservation?.key,
          reserved: reservation?.marker,
        });
        const markerId = await reservation?.marker;
        const contentType = await detectContentType(staged.head, fileName);
        if (!isAllowedContentType(contentType)) {
          await this.store.discard(staged);
          throw validationError(`File content type ${contentType} is not allowed`, [{ property: field, message: `content type ${contentType} is not allowed` }]);
        }
        if (this.failure) await this.drop(staged, markerId);
        else this.files.push({ field, name: fileName, contentType, staged, seq, index: info?.index, markerId });
      } catch (error) {
        if (reservation) await reservation.marker.then((id) => releaseBlobKeys([id]), () => undefined);
        stream.unpipe(tap);
        stream.resume();
        throw this.fail(error instanceof BlobTooLargeError ? payloadTooLarge(`File is larger than the maximum of ${this.maxBytes} bytes`) : (error as Error));
      } finally {
        this.taps.delete(tap);
      }
    })();
    this.pending.push(work.catch(() => undefined));
    return work;
  };

  /** Marks the upload failed (first reason wins) and tells `failed`'s waiter. */
  fail(error: Error): Error {
    if (!this.failure) {
      this.failure = error;
      this.rejectFailed(error);
    }
    return this.failure;
  }

  /** Waits for every part in flight, then throws the first failure if there was one. */
  async settle(): Promise<StagedFile[]> {
    await Promise.all(this.pending);
    if (this.failure) throw this.failure;
    this.files.sort((a, b) => a.seq - b.seq);
    orderIndexedParts(this.files);
    return this.files;
  }

  /** Drops one staged file that will not be stored. */
  async discardOne(file: StagedFile): Promise<void> {
    const index = this.files.indexOf(file);
    if (index !== -1) this.files.splice(index, 1);
    await this.drop(file.staged, file.markerId);
  }

  private async drop(staged: StagedBlob, markerId: string | undefined): Promise<void> {
    await this.store.discard(staged);
    if (markerId !== undefined) await releaseBlobKeys([markerId]);
  }

  /** Drops every temp file, stopping parts still streaming; safe to call more than once. */
  async discard(): Promise<void> {
    if (!this.failure) this.fail(new AppError("badRequest", "Upload cancelled"));
    for (const tap of this.taps) tap.destroy(new Error("upload discarded"));
    await Promise.all(this.pending);
    const files = this.files.splice(0);
    await Promise.all(files.map((f) => this.drop(f.staged, f.markerId).catch(() => undefined)));
  }
}

/**
 * Files named with indexes (`photos[1]`, `photos[0]`) take their places in index order, as
 * non-file parts do (CONTRACT §5): in place, within the slots their property's parts hold. An
 * index repeated or leaving a gap, or indexed and plain parts of one property mixed: 400.
 */
function orderIndexedParts(files: StagedFile[]): void {
  const byField = new Map<string, number[]>();
  files.forEach((file, at) => byField.set(file.field, [...(byField.get(file.field) ?? []), at]));
  for (const [field, slots] of byField) {
    const parts = slots.map((at) => files[at]);
    const indexed = parts.filter((file) => file.index !== undefined);
    if (indexed.length === 0) continue;
    if (indexed.length !== parts.length) throw badRequest(`File parts of ${field} mix indexed and plain names`);
    const ordered = [...parts].sort((a, b) => a.index! - b.index!);
    ordered.forEach((file, i) => {
      if (file.index !== i) throw badRequest(`File part ${field}[${file.index}]: no part gives index ${i} of its array`);
    });
    slots.forEach((at, i) => (files[at] = ordered[i]));
  }
}
