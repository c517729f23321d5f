import { afterAll, describe, expect, it } from "vitest";
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
