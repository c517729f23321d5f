import { randomBytes } from "node:crypto";
import path from "node:path";
import { createLocalDiskBlobStore, type LocalDiskBlobStore } from "../blob/local-disk-blob-store";
import { config } from "../config";

/**
 * The process's store for file bytes, under `ARCA_DATA_DIR/files`. Rebuilt when the data dir
 * changes (tests reset the configuration between servers).
 */
let current: { root: string; store: LocalDiskBlobStore } | undefined;

export function fileBlobStore(): LocalDiskBlobStore {
  const root = path.join(config().dataDir, "files");
  if (current?.root !== root) current = { root, store: createLocalDiskBlobStore(root) };
  return current.store;
}

/**
 * A fresh key for every upload, never the file id: replacing a file's bytes writes a new blob
 * and queues the old one, so a reader streaming the old bytes is never cut short (the
 * supabase/storage "version" idea). Project first, so one project's blobs can be found by prefix.
 */
export function newBlobKey(projectId: string): string {
  return `${projectId}/${Date.now().toString(36)}-${randomBytes(9).toString("hex")}`;
}
