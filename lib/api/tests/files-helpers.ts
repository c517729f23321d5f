import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { inject } from "vitest";
import type { TestServer } from "../../testing/test-server";

/** Shared pieces of the files tests. */
export const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a2e2c6a40000000049454e44ae426082",
  "hex",
);
export const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(120, 1)]);
export const WASM = Buffer.concat([Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]), Buffer.alloc(32, 0)]);

export function form(parts: Array<[string, string | Buffer, string?]>): FormData {
  const body = new FormData();
  for (const [name, value, fileName] of parts) {
    if (fileName !== undefined) body.append(name, new Blob([typeof value === "string" ? value : new Uint8Array(value)]), fileName);
    else body.append(name, value as string);
  }
  return body;
}

let client: pg.Client | undefined;
export async function db(): Promise<pg.Client> {
  if (!client) {
    client = new pg.Client({ connectionString: inject("databaseUrl") });
    await client.connect();
  }
  return client;
}
export async function closeDb() {
  await client?.end();
  client = undefined;
}

export async function filesSize(project: string): Promise<number> {
  const { rows } = await (await db()).query("SELECT files_size FROM project_totals WHERE project_id = $1", [project]);
  return Number(rows[0].files_size);
}
export async function sumOfSizes(project: string): Promise<number> {
  const { rows } = await (await db()).query("SELECT coalesce(sum(size),0) AS sum FROM files WHERE project_id = $1", [project]);
  return Number(rows[0].sum);
}
/** Upload markers of the project's blob keys still pending in `blob_deletions` (lib/files/upload-files.ts). */
export async function pendingMarkers(project: string): Promise<number> {
  const { rows } = await (await db()).query("SELECT count(*) AS n FROM blob_deletions WHERE owner IS NOT NULL AND blob_key LIKE $1 || '/%'", [project]);
  return Number(rows[0].n);
}
export async function fileRows(project: string) {
  return (await (await db()).query("SELECT * FROM files WHERE project_id = $1 ORDER BY id", [project])).rows;
}

/**
 * Every blob and staged (temp) upload of the server's store: files under its data dir, or, when
 * the suite runs on S3 (ARCA_TEST_BLOB_STORE=s3), the bucket's committed objects and its staging
 * objects and open multipart uploads.
 */
export async function blobFiles(server: TestServer): Promise<{ blobs: string[]; temps: string[] }> {
  if (server.s3) {
    const { ListObjectsV2Command, ListMultipartUploadsCommand } = await import("@aws-sdk/client-s3");
    const list = async (Prefix: string) => {
      const keys: string[] = [];
      let ContinuationToken: string | undefined;
      do {
        const page = await server.s3!.client.send(new ListObjectsV2Command({ Bucket: server.s3!.bucket, Prefix, ContinuationToken }));
        keys.push(...(page.Contents ?? []).map((o) => o.Key!));
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
      return keys;
    };
    const uploads = await server.s3.client.send(new ListMultipartUploadsCommand({ Bucket: server.s3.bucket }));
    return { blobs: await list("blobs/"), temps: [...(await list("staging/")), ...(uploads.Uploads ?? []).map((u) => `upload:${u.Key}`)] };
  }
  const root = path.join(server.dataDir, "files");
  const blobs: string[] = [];
  const temps: string[] = [];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else (path.relative(root, full).startsWith("tmp") ? temps : blobs).push(full);
    }
  };
  walk(root);
  return { blobs, temps };
}

export async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function getBytes(server: TestServer, pathname: string, project: string, token: string, headers: Record<string, string> = {}, method = "GET") {
  const response = await fetch(server.url + pathname, { method, headers: { "x-project": project, authorization: `Token ${token}`, ...headers } });
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, body };
}
