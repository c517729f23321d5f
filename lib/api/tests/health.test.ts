import { afterAll, describe, expect, inject, it } from "vitest";
import { apiSuite } from "../../testing/api-suite";
import { startApiProcess, type ApiProcess } from "../../testing/api-process";

const t = apiSuite();
let broken: ApiProcess | undefined;
afterAll(() => broken?.kill("SIGKILL"));

describe("health probes", () => {
  it("liveness answers without credentials on any host; readiness reports the database and the blob store", async () => {
    const live = await t.server.request("/api/health/");
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: "ok" });
    const onProject = await t.server.request("/api/health", { project: t.owner.project });
    expect(onProject.status).toBe(200);
    const ready = await t.server.request("/api/health/ready/");
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: "ready", database: "ok", blobs: "ok" });
  });

  it("readiness is 503 with Retry-After while the database cannot be reached; liveness stays 200", async () => {
    broken = await startApiProcess("postgres://nobody:wrong@127.0.0.1:1/none");
    const live = await fetch(`${broken.url}/api/health/`);
    expect(live.status).toBe(200);
    const ready = await fetch(`${broken.url}/api/health/ready/`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get("retry-after")).toBe("5");
    const body = await ready.json();
    expect(body.status).toBe("unavailable");
    expect(body.database).toMatch(/^error: /);
    expect(body.blobs).toBe("ok");
  });
});

describe("a misconfigured S3 store", () => {
  it("stops the server at start instead of failing the first upload", async () => {
    const started = startApiProcess(inject("databaseUrl"), {
      ARCA_BLOB_STORE: "s3",
      ARCA_S3_ENDPOINT: inject("s3Endpoint"),
      ARCA_S3_BUCKET: "no-such-bucket-anywhere",
      ARCA_S3_ACCESS_KEY_ID: "TESTACCESSKEY0000001",
      ARCA_S3_SECRET_ACCESS_KEY: "testsecretkey0000000000000000000000000001",
    });
    await expect(started).rejects.toThrow(/exited before listening/);
  });
});
