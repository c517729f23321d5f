import { expect, test, type Page } from "@playwright/test";
import { api, createProjectViaApi, signUpViaApi, uniqueEmail } from "./support/api";
import { signIn } from "./support/sign-in";
import { snap } from "./support/screenshots";

/**
 * Files through the dashboard: uploads with a real progress bar (XMLHttpRequest upload events)
 * and cancel, previews, downloads, a refused type, an upload onto a document property.
 */

// The smallest PNG: 1x1, one transparent pixel.
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");
// An ELF header: executables are outside the allowed types.
const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]), Buffer.alloc(120)]);
const MB = 1024 * 1024;

/** Records every value the upload progress bars show, from before the upload starts. */
async function watchProgress(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as { __progress: number[] };
    w.__progress = [];
    new MutationObserver((records) => {
      for (const record of records) {
        const target = record.target as Element;
        if (target.getAttribute?.("role") === "progressbar") w.__progress.push(Number(target.getAttribute("aria-valuenow")));
      }
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["aria-valuenow"] });
  });
}

/** Slows uploads down (Chromium's network emulation) so progress and cancel can be seen. */
async function throttleUploads(page: Page, bytesPerSecond: number) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond });
  return async () => {
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await cdp.detach();
  };
}

test("files: upload with progress, cancel, preview, download, refused type, document property", async ({ page }) => {
  const email = uniqueEmail("files");
  const password = "files password";
  const projectId = `files-${Date.now().toString(36)}`;
  const session = await signUpViaApi(email, password);
  await createProjectViaApi(session, projectId, "Media");
  const schema = { type: "object", properties: { title: { type: "string" }, cover: { type: "file" } } };
  expect((await api("/api/collections/", { json: { _id: "albums", schema }, session, project: projectId })).status).toBe(201);
  expect((await api("/api/collections/albums/documents/", { json: { _id: "a1", title: "First" }, session, project: projectId })).status).toBe(201);
  await signIn(page, email, password);
  await page.goto(`/projects/${projectId}/files`);
  await expect(page.getByText("No files yet.")).toBeVisible();
  await snap(page, "files-empty", { phone: true });

  await test.step("a small PNG: progress to 100 % and the preview", async () => {
    await watchProgress(page);
    await page.getByLabel("Choose files").setInputFiles({ name: "pixel.png", mimeType: "image/png", buffer: PNG });
    const bar = page.getByRole("progressbar", { name: "Upload of pixel.png" });
    await expect(bar).toHaveAttribute("aria-valuenow", "100");
    await expect(page.getByTestId("upload").filter({ hasText: "pixel.png" })).toContainText("Uploaded");
    const preview = page.getByRole("img", { name: "Preview of pixel.png" });
    await expect(preview).toBeVisible();
    expect(await preview.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
    await expect(page.getByRole("list", { name: "Files" })).toContainText("pixel.png");
  });

  await test.step("a 5 MB file: progress events on the way to 100 %", async () => {
    const restore = await throttleUploads(page, 2 * MB);
    await watchProgress(page);
    await page.getByLabel("Choose files").setInputFiles({ name: "big.txt", mimeType: "text/plain", buffer: Buffer.alloc(5 * MB, "a") });
    const bar = page.getByRole("progressbar", { name: "Upload of big.txt" });
    await expect.poll(async () => Number(await bar.getAttribute("aria-valuenow"))).toBeGreaterThan(0);
    await snap(page, "files-uploading");
    await expect(bar).toHaveAttribute("aria-valuenow", "100", { timeout: 30_000 });
    await expect(page.getByTestId("upload").filter({ hasText: "big.txt" })).toContainText("Uploaded");
    await restore();
    const seen = await page.evaluate(() => (window as unknown as { __progress: number[] }).__progress);
    const between = seen.filter((value) => value > 0 && value < 100);
    expect(between.length, `progress values seen: ${seen.join(", ")}`).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)).toBe(100);
    // Text previews as text.
    await expect(page.getByLabel("Preview of big.txt")).toContainText("aaaaaaaa");
  });

  await test.step("cancel an upload: nothing is stored", async () => {
    const before = (await api("/api/collections/_files/documents/", { session, project: projectId })).body.total;
    const restore = await throttleUploads(page, 512 * 1024);
    await page.getByLabel("Choose files").setInputFiles({ name: "cancelled.bin", mimeType: "application/octet-stream", buffer: Buffer.alloc(5 * MB, 1) });
    const bar = page.getByRole("progressbar", { name: "Upload of cancelled.bin" });
    await expect.poll(async () => Number(await bar.getAttribute("aria-valuenow"))).toBeGreaterThan(0);
    await page.getByRole("button", { name: "Cancel upload of cancelled.bin" }).click();
    await expect(page.getByTestId("upload").filter({ hasText: "cancelled.bin" })).toContainText("Cancelled");
    await restore();
    await expect.poll(async () => (await api("/api/collections/_files/documents/", { session, project: projectId })).body.total).toBe(before);
  });

  await test.step("a refused type says so plainly", async () => {
    await page.getByLabel("Choose files").setInputFiles({ name: "tool.bin", mimeType: "application/octet-stream", buffer: ELF });
    const row = page.getByTestId("upload").filter({ hasText: "tool.bin" });
    await expect(row.getByRole("alert")).toContainText("This file type is not allowed:");
    await expect(row.getByRole("alert")).toContainText("tool.bin");
    await expect(row).toContainText("Not uploaded");
    await snap(page, "files-refused", { phone: true });
  });

  await test.step("download a file", async () => {
    const item = page.getByRole("list", { name: "Files" }).getByRole("listitem").filter({ hasText: "pixel.png" });
    const download = page.waitForEvent("download");
    await item.getByRole("link", { name: "Download pixel.png" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe("pixel.png");
    const path = await file.path();
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(path).equals(PNG)).toBe(true);
  });

  await test.step("upload onto a document property", async () => {
    await page.getByLabel("A document property").check();
    await page.getByLabel("Collection", { exact: true }).selectOption("albums");
    await page.getByLabel("Document ID").fill("a1");
    await expect(page.getByText("File properties: cover")).toBeVisible();
    await page.getByLabel("Property", { exact: true }).fill("cover");
    await page.getByLabel("Choose files").setInputFiles({ name: "cover.png", mimeType: "image/png", buffer: PNG });
    await expect(page.getByRole("progressbar", { name: "Upload of cover.png" })).toHaveAttribute("aria-valuenow", "100");
    await expect(page.getByRole("img", { name: "Preview of cover.png" })).toBeVisible();
    const document = await api("/api/collections/albums/documents/a1/", { session, project: projectId });
    expect(document.body.cover).toMatchObject({ name: "cover.png", collection_id: "albums", document_id: "a1", content_type: "image/png" });
    await expect(page.getByRole("list", { name: "Files" }).getByRole("listitem").filter({ hasText: "cover.png" })).toContainText("albums/a1");
    await snap(page, "files", { phone: true });
  });

  await test.step("delete a file", async () => {
    const list = page.getByRole("list", { name: "Files" });
    await list.getByRole("button", { name: "Delete big.txt" }).click();
    await page.getByRole("dialog", { name: "Delete this file?" }).getByRole("button", { name: "Delete file" }).click();
    await expect(list.getByText("big.txt")).toHaveCount(0);
    const names = (await api("/api/collections/_files/documents/", { session, project: projectId })).body.items.map((f: { name: string }) => f.name).sort();
    expect(names).toEqual(["cover.png", "pixel.png"]);
  });
});
