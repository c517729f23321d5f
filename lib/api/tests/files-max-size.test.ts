import net from "node:net";
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

it("a _files upload declaring a body past the limit is 413 before its body is read", async () => {
  const { project, token } = await ownerWithProject(server);
  const boundary = "b0undary";
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  // Declares 6 GiB and sends a few bytes of it: without the early answer the server would wait for the rest.
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(server.port, "127.0.0.1", () => {
      socket.write(
        `POST /api/collections/_files/documents/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Project: ${project}\r\nAuthorization: Token ${token}\r\n` +
          `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${6 * 1024 ** 3}\r\n\r\n${head}abc`,
      );
    });
    let text = "";
    socket.on("data", (chunk) => {
      text += chunk;
      if (text.includes("\r\n\r\n{")) (socket.destroy(), resolve(text));
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(text));
  });
  expect(answer).toMatch(/^HTTP\/1\.1 413/);
  expect(answer).toContain("File is larger than the maximum of 65536 bytes");
  expect(await fileRows(project)).toHaveLength(0);
});
