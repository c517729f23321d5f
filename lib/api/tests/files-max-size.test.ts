import { afterAll, beforeAll, expect, it } from "vitest";
import { resetConfig } from "../../config";
import { opaqueBytes, ownerWithProject } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/test-server";
import { blobFiles, closeDb, fileRows, filesSize, form, pendingMarkers, until } from "./files-helpers";

let server: TestServer;

beforeAll(async () => {
  process.env.ARCA_MAX_FILE_SIZE = String(64 * 1024);
  resetConfig();
  server = await startTestServer();
});
afterAll(async () => {
  delete process.env.ARCA_MAX_FILE_SIZE;
  await closeDb();
  await server.close();
});

it("413 over ARCA_MAX_FILE_SIZE, nothing stored; at the limit is fine", async () => {
  const { project, token } = await ownerWithProject(server);
  const over = await server.request("/api/collections/_files/documents/", { project, token, body: form([["file", opaqueBytes(64 * 1024 + 1), "big.bin"]]) });
  expect(over.status, over.text).toBe(413);
  const intoDoc = await server.request("/api/collections/d/documents/", { project, token, body: form([["f", opaqueBytes(200 * 1024), "big.bin"]]) });
  expect(intoDoc.status).toBe(413);
  await until(async () => (await blobFiles(server)).temps.length === 0);
  expect((await blobFiles(server)).blobs).toHaveLength(0);
  expect(await pendingMarkers(project)).toBe(0);
  expect(await fileRows(project)).toHaveLength(0);
  expect(await filesSize(project)).toBe(0);
  const ok = await server.request("/api/collections/_files/documents/", { project, token, body: form([["file", opaqueBytes(64 * 1024), "ok.bin"]]) });
  expect(ok.status).toBe(201);
});
