import path from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { createLocalDiskBlobStore } from "../../blob/local-disk-blob-store";
import { migrateBlobs, recordBlobStore, recordedBlobStore } from "../../blob/migrate-blobs";
import { createS3BlobStore, type S3BlobStore } from "../../blob/s3-blob-store";
import { apiSuite } from "../../testing/api-suite";
import { form, PNG } from "./files-helpers";

/** `arca blobs migrate --to s3`: the local disk's blobs copied to a real S3 (Ceph RGW), verified, resumable. */
const t = apiSuite();
const endpoint = inject("s3Endpoint");
const credentials = { accessKeyId: "TESTACCESSKEY0000001", secretAccessKey: "testsecretkey0000000000000000000000000001" };
const bucket = `arca-migrate-${Date.now().toString(36)}`;
let target: S3BlobStore;

beforeAll(async () => {
  await new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials }).send(new CreateBucketCommand({ Bucket: bucket }));
  target = createS3BlobStore({ endpoint, bucket, region: "us-east-1", forcePathStyle: true, ...credentials });
});

describe("blobs migrate", () => {
  it("copies every referenced blob with its md5 checked, skips what is there on a second run, refuses a mismatch", async () => {
    const as = { project: t.owner.project, token: t.owner.token };
    const keys: string[] = [];
    for (const [i, bytes] of [PNG, Buffer.from("plain text file\n"), Buffer.alloc(3 * 1024 * 1024, 7)].entries()) {
      const r = await t.server.request("/api/collections/_files/documents/", { ...as, body: form([["file", bytes, `f${i}.bin`]]) });
      expect(r.status, r.text).toBe(201);
      const { rows } = await t.db.query("SELECT blob_key FROM files WHERE project_id = $1 AND id = $2", [t.owner.project, r.body._id]);
      keys.push(rows[0].blob_key);
    }
    const source = createLocalDiskBlobStore(path.join(t.server.dataDir, "files"));
    // Other test files share the database with their own data dirs: their blobs are "missing" here.
    const ours = (list: string[]) => list.filter((k) => keys.includes(k));
    const first = await migrateBlobs(source, target, { projects: [t.owner.project] });
    expect(first.copied).toBeGreaterThanOrEqual(3);
    expect(ours(first.missing)).toEqual([]);
    expect(first.mismatched).toEqual([]);
    for (const key of keys) expect((await target.stat(key))?.size).toBe((await source.stat(key))?.size);

    const second = await migrateBlobs(source, target, { projects: [t.owner.project] });
    expect(second.copied).toBe(0);
    expect(second.skipped).toBe(second.total - second.missing.length);

    // A record whose md5 does not match its bytes is reported, and its copy does not stay.
    await target.delete(keys[1]);
    await t.db.query("UPDATE files SET md5 = repeat('0', 32) WHERE project_id = $1 AND blob_key = $2", [t.owner.project, keys[1]]);
    const third = await migrateBlobs(source, target, { projects: [t.owner.project] });
    expect(third.mismatched).toEqual([keys[1]]);
    expect(await target.exists(keys[1])).toBe(false);
  });

  it("records the switch in the data directory", async () => {
    expect(await recordedBlobStore(t.server.dataDir)).toBeUndefined();
    await recordBlobStore(t.server.dataDir, "s3");
    expect(await recordedBlobStore(t.server.dataDir)).toBe("s3");
  });
});
