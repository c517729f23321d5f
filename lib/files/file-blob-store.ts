import { randomBytes } from "node:crypto";
import path from "node:path";
import type { BlobStore } from "../blob/blob-store";
import { createLocalDiskBlobStore } from "../blob/local-disk-blob-store";
import { createS3BlobStore, s3SettingsFromEnv, type S3BlobStore } from "../blob/s3-blob-store";
import { config } from "../config";

/**
 * The process's store for file bytes: the local disk under `ARCA_DATA_DIR/files` (the default),
 * or an S3-compatible bucket (`ARCA_BLOB_STORE=s3`, docs/deploy.md). Rebuilt when the
 * configuration changes (tests reset it between servers).
 */
let current: { identity: string; store: BlobStore } | undefined;

export function fileBlobStore(): BlobStore {
  const { blobStore, dataDir } = config();
  const identity = blobStore === "s3" ? `s3:${process.env.ARCA_S3_ENDPOINT}/${process.env.ARCA_S3_BUCKET}` : `local:${dataDir}`;
  if (current?.identity !== identity)
    current = { identity, store: blobStore === "s3" ? createS3BlobStore(s3SettingsFromEnv()) : createLocalDiskBlobStore(path.join(dataDir, "files")) };
  return current.store;
}

/**
 * At start: a misconfigured S3 store (missing bucket, refused keys, unreachable endpoint) stops
 * the server with a message naming the problem, instead of failing the first upload.
 */
export async function checkFileBlobStore(): Promise<void> {
  const store = fileBlobStore();
  if ("check" in store) await (store as S3BlobStore).check();
}

/**
 * A fresh key for every upload, never the file id: replacing a file's bytes writes a new blob
 * and queues the old one, so a reader streaming the old bytes is never cut short (the
 * supabase/storage "version" idea). Project first, so one project's blobs can be found by prefix.
 */
export function newBlobKey(projectId: string): string {
  return `${projectId}/${Date.now().toString(36)}-${randomBytes(9).toString("hex")}`;
}
