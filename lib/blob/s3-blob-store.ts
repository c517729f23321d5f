/**
 * BlobStore on any S3-compatible object store (AWS S3, Ceph RGW, MinIO, R2), selected by
 * `ARCA_BLOB_STORE=s3` (docs/deploy.md):
 *
 *   <bucket>/staging/<uuid>      staged bytes (a multipart upload while they stream)
 *   <bucket>/blobs/<key>         committed blobs
 *
 * Uploads stream through `s3ObjectWriter` (multipart above the part size, at most `queueSize`
 * parts in memory, md5 and size computed on the way); a failed or aborted upload aborts its
 * multipart upload, so no parts are left behind, and `sweepTemp` aborts any a crash
 * left. Commit is a server-side copy to the final key (then the staged object goes): the caller
 * decides on the key only after looking at the bytes. Ranges are ranged GETs.
 */
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
  UploadPartCopyCommand,
} from "@aws-sdk/client-s3";
import { blobMeter } from "./blob-meter";
import { isDeadOwner, OWNER_PATTERN, processOwner } from "./process-owner";
import { s3ObjectWriter } from "./s3-object-writer";
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

export interface S3Settings {
  endpoint?: string;
  bucket: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

export interface S3BlobStore extends BlobStore {
  /** Throws with a clear message when the bucket cannot be reached with these settings. */
  check(): Promise<void>;
}

const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 4;
// CopyObject copies at most 5 GiB in one request; larger blobs copy part by part.
const MAX_SINGLE_COPY = 5 * 1024 ** 3;
const COPY_PART = 512 * 1024 ** 2;
// `staging/<uuid>.<owner>`: the writing process, so a dead one's leftovers go at the next start.
const STAGED = new RegExp(`^staging/[0-9a-f-]{36}\\.(${OWNER_PATTERN})$`);

export function createS3BlobStore(settings: S3Settings): S3BlobStore {
  const client = new S3Client({
    endpoint: settings.endpoint || undefined,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.accessKeyId && settings.secretAccessKey ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } : undefined,
    // Streaming bodies with the SDK's default flexible checksums are refused by some S3 servers
    // (Ceph RGW 16: 411 MissingContentLength); md5 is computed by Arca anyway.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  if (transportProtectsPayload(settings.endpoint)) {
    // Parts go as Buffers, which the SigV4 signer hashes whole (SHA-256 over every
    // byte: as much CPU as Arca's own md5, on the one event loop). Where TLS or loopback already
    // protects the bytes, parts go as UNSIGNED-PAYLOAD, as the SDK itself sends streamed bodies.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const request = args.request as { headers?: Record<string, string> };
        if (UNSIGNED_COMMANDS.has(context.commandName ?? "") && request.headers) request.headers["x-amz-content-sha256"] = "UNSIGNED-PAYLOAD";
        return next(args);
      },
      { step: "build", name: "arcaUnsignedPayload" },
    );
  }
  const Bucket = settings.bucket;
  const objectKey = (key: string) => {
    assertBlobKey(key);
    return `blobs/${key}`;
  };
  const stagedKey = (staged: StagedBlob) => {
    if (!STAGED.test(staged.id)) throw new InvalidBlobKeyError(staged.id, "not a staged blob of this store");
    return staged.id;
  };

  /** Streams `source` to `Key`, metered; on any failure nothing is left under `Key`, no part anywhere. */
  async function upload(Key: string, source: BlobSource, options: StageOptions): Promise<ReturnType<ReturnType<typeof blobMeter>["result"]>> {
    const { signal, maxBytes = Number.POSITIVE_INFINITY, headBytes = DEFAULT_HEAD_BYTES } = options;
    const meter = blobMeter(maxBytes, headBytes);
    const writer = s3ObjectWriter(client, Bucket, Key, { partSize: PART_SIZE, queueSize: QUEUE_SIZE });
    try {
      await pipeline(source, meter.stream, writer, { signal });
    } catch (error) {
      // The writer aborts its multipart upload once its requests have settled ('close').
      writer.destroy();
      if (!writer.closed) await once(writer, "close");
      // A single-request upload may have completed before the feed failed.
      await client.send(new DeleteObjectCommand({ Bucket, Key })).catch(() => {});
      throw error;
    }
    return meter.result();
  }

  async function stage(source: BlobSource, options: StageOptions = {}): Promise<StagedBlob> {
    if (options.key !== undefined) {
      // In place: the object appears only when its upload completes, after the caller's marker.
      const { key, reserved } = options;
      const Key = objectKey(key);
      await reserved;
      return { id: key, key, ...(await upload(Key, source, options)) };
    }
    const id = `staging/${randomUUID()}.${processOwner()}`;
    const written = await upload(id, source, options);
    return { id, ...written };
  }

  async function copy(from: string, to: string, size: number): Promise<void> {
    const CopySource = encodeURI(`${Bucket}/${from}`);
    if (size <= MAX_SINGLE_COPY) {
      await client.send(new CopyObjectCommand({ Bucket, Key: to, CopySource }));
      return;
    }
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key: to }));
    try {
      const parts = [];
      for (let start = 0, n = 1; start < size; start += COPY_PART, n++) {
        const end = Math.min(size, start + COPY_PART) - 1;
        const part = await client.send(new UploadPartCopyCommand({ Bucket, Key: to, UploadId, PartNumber: n, CopySource, CopySourceRange: `bytes=${start}-${end}` }));
        parts.push({ ETag: part.CopyPartResult?.ETag, PartNumber: n });
      }
      await client.send(new CompleteMultipartUploadCommand({ Bucket, Key: to, UploadId, MultipartUpload: { Parts: parts } }));
    } catch (error) {
      await client.send(new AbortMultipartUploadCommand({ Bucket, Key: to, UploadId })).catch(() => {});
      throw error;
    }
  }

  async function commit(staged: StagedBlob, key: string): Promise<void> {
    if (stagedInPlace(staged, key)) return;
    const from = stagedKey(staged);
    await copy(from, objectKey(key), staged.size);
    await client.send(new DeleteObjectCommand({ Bucket, Key: from })).catch(() => {});
  }

  async function discard(staged: StagedBlob): Promise<void> {
    await client.send(new DeleteObjectCommand({ Bucket, Key: staged.key !== undefined ? objectKey(staged.key) : stagedKey(staged) }));
  }

  async function write(key: string, source: BlobSource, options: WriteOptions = {}): Promise<WrittenBlob> {
    const { size, md5 } = await upload(objectKey(key), source, { ...options, headBytes: 0 });
    return { size, md5 };
  }

  async function read(key: string, range?: BlobRange): Promise<Readable | undefined> {
    try {
      const answer = await client.send(new GetObjectCommand({ Bucket, Key: objectKey(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }));
      return answer.Body as Readable;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async function stat(key: string): Promise<BlobStat | undefined> {
    try {
      const head = await client.send(new HeadObjectCommand({ Bucket, Key: objectKey(key) }));
      return { size: Number(head.ContentLength ?? 0), modifiedAt: head.LastModified ?? new Date(0) };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async function remove(key: string): Promise<void> {
    await client.send(new DeleteObjectCommand({ Bucket, Key: objectKey(key) }));
  }

  async function sweepTemp(olderThanMs: number): Promise<number> {
    const before = Date.now() - olderThanMs;
    let removed = 0;
    for await (const object of list("staging/")) {
      if ((object.LastModified?.getTime() ?? 0) < before) {
        await client.send(new DeleteObjectCommand({ Bucket, Key: object.Key! }));
        removed++;
      }
    }
    // Multipart uploads a crash left open (staging or a large commit's copy).
    let KeyMarker: string | undefined;
    let UploadIdMarker: string | undefined;
    for (;;) {
      const page = await client.send(new ListMultipartUploadsCommand({ Bucket, KeyMarker, UploadIdMarker }));
      for (const open of page.Uploads ?? []) {
        if ((open.Initiated?.getTime() ?? 0) < before) {
          await client.send(new AbortMultipartUploadCommand({ Bucket, Key: open.Key!, UploadId: open.UploadId! })).catch(() => {});
          removed++;
        }
      }
      if (!page.IsTruncated) break;
      KeyMarker = page.NextKeyMarker;
      UploadIdMarker = page.NextUploadIdMarker;
    }
    return removed;
  }

  async function sweepDeadTemp(): Promise<number> {
    let removed = 0;
    for await (const object of list("staging/")) {
      const owner = STAGED.exec(object.Key!)?.[1];
      if (!owner || !isDeadOwner(owner)) continue;
      await client.send(new DeleteObjectCommand({ Bucket, Key: object.Key! }));
      removed++;
    }
    return removed;
  }

  async function* list(Prefix: string) {
    let ContinuationToken: string | undefined;
    for (;;) {
      const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix, ContinuationToken }));
      for (const object of page.Contents ?? []) yield object;
      if (!page.IsTruncated) return;
      ContinuationToken = page.NextContinuationToken;
    }
  }

  return {
    stage,
    commit,
    discard,
    write,
    read,
    stat,
    exists: async (key) => (await stat(key)) !== undefined,
    delete: remove,
    sweepTemp,
    sweepDeadTemp,
    async check() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
      } catch (error) {
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        const why = status === 404 ? "the bucket does not exist" : status === 403 ? "access denied (check the keys)" : (error as Error).message || (error as Error).name;
        throw new Error(`S3 blob store: bucket "${Bucket}" at ${settings.endpoint || "AWS"} (${settings.region}) is not usable: ${why}`);
      }
    },
    async *listKeys() {
      for await (const object of list("blobs/")) yield object.Key!.slice("blobs/".length);
    },
  };
}

const UNSIGNED_COMMANDS = new Set(["UploadPartCommand", "PutObjectCommand"]);

/** True for an https endpoint (AWS when none is set) or one on this machine's loopback. */
export function transportProtectsPayload(endpoint: string | undefined): boolean {
  if (!endpoint) return true;
  const url = new URL(endpoint);
  if (url.protocol === "https:") return true;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function isMissing(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === "NoSuchKey" || e.name === "NotFound" || e.$metadata?.httpStatusCode === 404;
}

/** The S3 settings from the environment (ARCA_S3_*), or a clear error naming what is missing. */
export function s3SettingsFromEnv(env: Record<string, string | undefined> = process.env): S3Settings {
  const bucket = env.ARCA_S3_BUCKET;
  if (!bucket) throw new Error("ARCA_BLOB_STORE=s3 needs ARCA_S3_BUCKET (and ARCA_S3_ENDPOINT for a store other than AWS)");
  if (!!env.ARCA_S3_ACCESS_KEY_ID !== !!env.ARCA_S3_SECRET_ACCESS_KEY)
    throw new Error("ARCA_S3_ACCESS_KEY_ID and ARCA_S3_SECRET_ACCESS_KEY go together");
  return {
    endpoint: env.ARCA_S3_ENDPOINT,
    bucket,
    region: env.ARCA_S3_REGION || "us-east-1",
    accessKeyId: env.ARCA_S3_ACCESS_KEY_ID,
    secretAccessKey: env.ARCA_S3_SECRET_ACCESS_KEY,
    forcePathStyle: (env.ARCA_S3_FORCE_PATH_STYLE ?? (env.ARCA_S3_ENDPOINT ? "true" : "false")) === "true",
  };
}
