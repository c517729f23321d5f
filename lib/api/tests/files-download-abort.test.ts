import fs from "node:fs";
import http from "node:http";
import { describe, expect, it } from "vitest";
import { apiSuite } from "../../testing/api-suite";

/** Downloads on the fast door are piped straight into the socket: an abort must free the file. */
const t = apiSuite();

const openFiles = () => fs.readdirSync("/proc/self/fd").length;

function abortAfterFirstChunk(path: string, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: "127.0.0.1", port: t.server.port, path, headers }, (response) => {
      expect(response.statusCode).toBe(200);
      response.once("data", () => {
        request.destroy();
        resolve();
      });
    });
    request.on("error", (error) => ((error as NodeJS.ErrnoException).code === "ECONNRESET" ? resolve() : reject(error)));
  });
}

describe("aborted downloads", () => {
  it("close their file and leave the server serving", async () => {
    const as = { project: t.owner.project, token: t.owner.token };
    const bytes = Buffer.alloc(64 * 1024 * 1024, 7);
    const form = new FormData();
    form.append("file", new Blob([bytes], { type: "application/octet-stream" }), "big.bin");
    const upload = await t.server.request("/api/collections/_files/documents/big/", { ...as, method: "PUT", body: form });
    expect(upload.status).toBe(201);

    const path = "/api/collections/_files/documents/big/content/";
    const headers = { authorization: `Token ${t.owner.token}`, "x-project": t.owner.project };
    await abortAfterFirstChunk(path, headers);
    const before = openFiles();
    for (let i = 0; i < 5; i++) await abortAfterFirstChunk(path, headers);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(openFiles()).toBeLessThanOrEqual(before + 1);

    const full = await fetch(`${t.server.url}${path}`, { headers });
    expect(full.headers.get("content-length")).toBe(String(bytes.length));
    expect(Buffer.from(await full.arrayBuffer()).equals(bytes)).toBe(true);
  });
});
