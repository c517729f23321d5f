import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { BASE_URL, createProjectViaApi, createTokenViaApi, signUpViaApi, uniqueEmail, uniqueProjectId } from "./support/api";

/**
 * A browser page on another origin calls `/api/` with a token (CONTRACT §1, issue 10 item 15):
 * the upload's preflight (Authorization, X-Project) passes, and the page can read `Content-Range`
 * of a Range download because the API exposes it. The page comes from a tiny server started here
 * on its own port (127.0.0.1:<port>, another origin than the app's localhost:3100).
 */
let pageServer: http.Server;
let pageOrigin: string;

test.beforeAll(async () => {
  pageServer = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>Another origin</title><main>client</main>");
  });
  await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => pageServer.close(resolve));
});

test("a page on another origin uploads with a token and reads Content-Range of a Range download", async ({ page }) => {
  const session = await signUpViaApi(uniqueEmail("cors"), "password-123");
  const project = uniqueProjectId("cors");
  await createProjectViaApi(session, project);
  const token = await createTokenViaApi(session, project, { allow: { all: true } });

  await page.goto(`${pageOrigin}/`);
  expect(new URL(page.url()).origin).not.toBe(new URL(BASE_URL).origin);
  const result = await page.evaluate(
    async ({ api, project, token }) => {
      const headers = { authorization: `Token ${token}`, "x-project": project };
      const form = new FormData();
      form.append("file", new Blob(["0123456789abcdef"], { type: "text/plain" }), "digits.txt");
      const upload = await fetch(`${api}/api/collections/_files/documents/cors-digits/`, { method: "PUT", headers, body: form });
      const uploaded = await upload.json();
      const download = await fetch(`${api}/api/collections/_files/documents/cors-digits/content/`, { headers: { ...headers, range: "bytes=4-9" } });
      return {
        uploadStatus: upload.status,
        uploadedId: uploaded._id,
        status: download.status,
        contentRange: download.headers.get("content-range"),
        contentLength: download.headers.get("content-length"),
        acceptRanges: download.headers.get("accept-ranges"),
        body: await download.text(),
      };
    },
    { api: BASE_URL, project, token },
  );
  expect(result).toEqual({
    uploadStatus: 201,
    uploadedId: "cors-digits",
    status: 206,
    contentRange: "bytes 4-9/16",
    contentLength: "6",
    acceptRanges: "bytes",
    body: "456789",
  });

  // Without exposure or with the dashboard's cookie this would fail; a token-less call still
  // reaches the page as a readable 401 (CORS headers on errors too).
  const anonymous = await page.evaluate(async ({ api, project }) => {
    const answer = await fetch(`${api}/api/collections/`, { headers: { "x-project": project } });
    return { status: answer.status, body: await answer.json() };
  }, { api: BASE_URL, project });
  expect(anonymous).toEqual({ status: 401, body: { message: "Not authorized" } });
});

test("dashboard pages may not be framed and send a strict referrer policy", async ({ request }) => {
  const signin = await request.get("/signin");
  expect(signin.status()).toBe(200);
  expect(signin.headers()["x-frame-options"]).toBe("DENY");
  expect(signin.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(signin.headers()["referrer-policy"]).toBe("strict-origin-when-cross-origin");
});
