import fs from "node:fs/promises";
import path from "node:path";
import { query } from "../db/query";
import { raw, sql } from "../db/sql";
import type { BlobStore } from "./blob-store";

/**
 * Copies every blob the `files` table references from one store to another (`arca blobs migrate
 * --to s3`): each one streamed and its md5 checked against the record as it passes (a mismatch is
 * reported and stops the switch, the copy is deleted); one already at the target with the right
 * size is skipped, so an interrupted run resumes. Answers what it did.
 */
export interface MigrationReport {
  total: number;
  copied: number;
  skipped: number;
  missing: string[];
  mismatched: string[];
}

export async function migrateBlobs(
  from: BlobStore,
  to: BlobStore,
  options: { log?: (line: string) => void; projects?: string[] } = {},
): Promise<MigrationReport> {
  const log = options.log ?? (() => {});
  const scope = options.projects ? sql`AND project_id = ANY(${options.projects}::text[])` : raw("");
  const report: MigrationReport = { total: 0, copied: 0, skipped: 0, missing: [], mismatched: [] };
  let after = "";
  for (;;) {
    const rows = await query<{ blob_key: string; size: number; md5: string }>(
      sql`SELECT DISTINCT ON (blob_key) blob_key, size, md5 FROM files WHERE blob_key > ${after} ${scope} ORDER BY blob_key LIMIT 500`,
    );
    if (!rows.length) break;
    for (const row of rows) {
      report.total++;
      const there = await to.stat(row.blob_key);
      if (there && there.size === Number(row.size)) {
        report.skipped++;
        continue;
      }
      const source = await from.read(row.blob_key);
      if (!source) {
        report.missing.push(row.blob_key);
        log(`missing at the source: ${row.blob_key}`);
        continue;
      }
      const written = await to.write(row.blob_key, source);
      if (written.md5 !== row.md5 || written.size !== Number(row.size)) {
        report.mismatched.push(row.blob_key);
        await to.delete(row.blob_key);
        log(`md5 or size differs from the record: ${row.blob_key}`);
        continue;
      }
      report.copied++;
      if (report.copied % 100 === 0) log(`${report.copied} copied, ${report.skipped} already there`);
    }
    after = rows[rows.length - 1].blob_key;
  }
  return report;
}

/**
 * The blob store a data directory has switched to (`$ARCA_DATA_DIR/blob-store`, written by a
 * complete migration); `ARCA_BLOB_STORE` in the environment wins over it.
 */
export async function recordedBlobStore(dataDir: string): Promise<string | undefined> {
  const text = await fs.readFile(path.join(dataDir, "blob-store"), "utf8").catch(() => undefined);
  return text?.trim() || undefined;
}

export async function recordBlobStore(dataDir: string, store: "s3" | "local"): Promise<void> {
  await fs.mkdir(dataDir, { recursive: true });
  await fs.writeFile(path.join(dataDir, "blob-store"), `${store}\n`);
}
