import { readFileSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { api, BASE_URL, createProjectViaApi, createTokenViaApi, signUpViaApi, uniqueEmail } from "./support/api";
import { snap } from "./support/screenshots";
import { signIn } from "./support/sign-in";

/**
 * Dashboard v2's remaining widgets (issue 14): streamed downloads, the embed picker, uploads in
 * the document form, the quick search without a text index, resizable columns, tokens' dates.
 * One owner and one project for the file; collections made through the API where the UI is not
 * the point.
 */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");
const HTML = "<!doctype html><title>x</title><script>document.title = 'ran'</script>";

const suffix = Date.now().toString(36);
const email = uniqueEmail("widgets");
const password = "widgets password";
const projectId = `widgets-${suffix}`;
let session = "";

const call = (path: string, options: Parameters<typeof api>[1] = {}) => api(path, { session, project: projectId, ...options });

async function uploadToFiles(name: string, bytes: Buffer | string, type: string): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([typeof bytes === "string" ? bytes : new Uint8Array(bytes)], { type }), name);
  const response = await fetch(`${BASE_URL}/api/collections/_files/documents/`, { method: "POST", body: form, headers: { authorization: `SessionId ${session}`, "x-project": projectId } });
  expect(response.status).toBe(201);
  return ((await response.json()) as { _id: string })._id;
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  session = await signUpViaApi(email, password);
  await createProjectViaApi(session, projectId, `Widgets ${suffix}`);
});

test.beforeEach(async ({ page }) => {
  await signIn(page, email, password);
});

async function expectNoSeriousViolations(page: Page, include: string) {
  const results = await new AxeBuilder({ page }).include(include).analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

test("streamed downloads: a link to the content with ?project=, saved by the browser as an attachment", async ({ page }) => {
  const pngId = await uploadToFiles("Résumé pixel.png", PNG, "image/png");
  await uploadToFiles("page.html", HTML, "text/html");
  await page.goto(`/projects/${projectId}/files`);
  const list = page.getByRole("list", { name: "Files" });

  await test.step("the Download link is the content URL on this host, named by ?project=", async () => {
    const link = list.getByRole("listitem").filter({ hasText: "Résumé pixel.png" }).getByRole("link", { name: "Download Résumé pixel.png" });
    await expect(link).toHaveAttribute("href", `/api/collections/_files/documents/${pngId}/content/?project=${projectId}`);
    await expect(link).toHaveAttribute("download", "Résumé pixel.png");
  });

  await test.step("a click is a navigation the browser saves: no fetch of the bytes into the page", async () => {
    const contentFetches: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/content/") && request.resourceType() === "fetch") contentFetches.push(request.url());
    });
    const download = page.waitForEvent("download");
    await list.getByRole("link", { name: "Download Résumé pixel.png" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe("Résumé pixel.png");
    expect(readFileSync((await file.path())!).equals(PNG)).toBe(true);
    expect(contentFetches).toEqual([]);
  });

  await test.step("HTML is saved, never rendered on the dashboard's origin", async () => {
    const download = page.waitForEvent("download");
    await list.getByRole("link", { name: "Download page.html" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe("page.html");
    expect(readFileSync((await file.path())!, "utf8")).toBe(HTML);
    await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/files$`));
    expect(await page.title()).not.toBe("ran");
  });

  await test.step("the answer: attachment with filename*, nosniff, CSP sandbox; another site's request is refused", async () => {
    const href = (await list.getByRole("link", { name: "Download Résumé pixel.png" }).getAttribute("href"))!;
    // The context's request client carries the dashboard's cookie, like the browser's navigation.
    const response = await page.request.get(href);
    expect(response.status()).toBe(200);
    expect(response.headers()["content-disposition"]).toBe(`attachment; filename="Resume pixel.png"; filename*=UTF-8''R%C3%A9sum%C3%A9%20pixel.png`);
    expect(response.headers()["x-content-type-options"]).toBe("nosniff");
    expect(response.headers()["content-security-policy"]).toBe("sandbox");
    const crossSite = await page.request.get(href, { headers: { origin: "http://evil.example" } });
    expect(crossSite.status()).toBe(401);
  });
  await snap(page, "widgets-files-download");
});

test("embed picker: search the linked collection, pick with the keyboard, stored as the key", async ({ page }) => {
  expect((await call("/api/collections/", { json: { _id: "authors", schema: { properties: { name: { type: "string", position: 1 } } } } })).status).toBe(201);
  for (const [id, name] of [["ulg", "Ursula Le Guin"], ["fh", "Frank Herbert"], ["ib", "Iain Banks"]])
    expect((await call("/api/collections/authors/documents/", { json: { _id: id, name } })).status).toBe(201);
  const schema = { properties: { title: { type: "string", position: 1 }, author: { type: "embed", collection: "authors", field: "_id", position: 2 } } };
  expect((await call("/api/collections/", { json: { _id: "novels", schema } })).status).toBe(201);
  await page.goto(`/projects/${projectId}/collections/novels`);
  await page.getByRole("button", { name: "New document" }).click();
  const panel = page.getByRole("dialog", { name: "New document" });
  await panel.getByLabel(/^title/).fill("Dune");
  const combo = panel.getByRole("combobox", { name: /^author/ });

  await test.step("typing searches authors (debounced, any case, name or key) and lists key and label", async () => {
    await combo.fill("HERB");
    const option = panel.getByRole("option", { name: /fh\s*Frank Herbert/ });
    await expect(option).toBeVisible();
    await expect(panel.getByRole("option")).toHaveCount(1);
    await expect(combo).toHaveAttribute("aria-expanded", "true");
    await expect(combo).toHaveAttribute("aria-controls", await panel.getByRole("listbox").getAttribute("id") as string);
    await combo.fill("zzz");
    await expect(panel.getByText("No document of authors matches.")).toBeVisible();
    await expect(combo).toHaveAttribute("aria-expanded", "false");
  });

  await test.step("Down moves the active option (aria-activedescendant), Enter picks it, Escape closes only the list", async () => {
    await combo.fill("");
    await combo.press("Escape");
    await expect(panel).toBeVisible();
    await combo.fill("a");
    await expect(panel.getByRole("option")).toHaveCount(3);
    await combo.press("ArrowDown");
    await combo.press("ArrowDown");
    const active = panel.getByRole("option", { selected: true });
    await expect(active).toContainText("Iain Banks");
    await expect(combo).toHaveAttribute("aria-activedescendant", (await active.getAttribute("id"))!);
    await combo.press("Enter");
    await expect(combo).toHaveValue("ib");
    await expect(combo).toHaveAttribute("aria-expanded", "false");
    await expectNoSeriousViolations(page, "[role=dialog]");
    await snap(page, "widgets-embed-picker");
  });

  await test.step("saved as the key; the read resolves it", async () => {
    await panel.getByRole("button", { name: "Create document" }).click();
    await expect(page.getByTestId("documents-total")).toHaveText("1 document · page 1 of 1");
    const stored = await call(`/api/collections/novels/documents/?filter=${encodeURIComponent(JSON.stringify({ title: "Dune" }))}`);
    expect(stored.body.items[0].author).toMatchObject({ _id: "ib", name: "Iain Banks" });
  });
});

test("file in the form: create first (the panel stays open), upload with progress, preview, and Save sends no file", async ({ page }) => {
  const schema = { properties: { title: { type: "string", position: 1 }, cover: { type: "file", position: 2 } } };
  expect((await call("/api/collections/", { json: { _id: "albums", schema } })).status).toBe(201);
  await page.goto(`/projects/${projectId}/collections/albums`);
  await page.getByRole("button", { name: "New document" }).click();
  const created = page.getByRole("dialog", { name: "New document" });
  await expect(created.getByTestId("file-field-cover")).toContainText("Create the document first");
  await created.getByLabel(/^_id/).fill("al1");
  await created.getByLabel(/^title/).fill("Blue");
  await created.getByRole("button", { name: "Create, then upload files" }).click();

  const panel = page.getByRole("dialog", { name: "Document al1" });
  await test.step("the panel stays open on the new document, whose cover takes an upload", async () => {
    await expect(panel.getByRole("form", { name: "Edit document" })).toBeVisible();
    const progress: number[] = [];
    await page.exposeFunction("__progress", (value: number) => progress.push(value));
    await page.evaluate(() =>
      new MutationObserver((records) => {
        for (const record of records)
          for (const node of [record.target, ...record.addedNodes]) {
            const bar = node instanceof Element ? (node.matches("[role=progressbar]") ? node : node.querySelector?.("[role=progressbar]")) : null;
            if (bar) (window as unknown as { __progress: (v: number) => void }).__progress(Number(bar.getAttribute("aria-valuenow")));
          }
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["aria-valuenow"] }),
    );
    const uploaded = page.waitForResponse((r) => r.request().method() === "PUT" && r.url().endsWith("/collections/albums/documents/al1/cover/"));
    await panel.getByLabel(/^cover/).setInputFiles({ name: "cover.png", mimeType: "image/png", buffer: PNG });
    expect((await uploaded).status()).toBe(201);
    await expect(panel.getByRole("img", { name: "Preview of cover.png" })).toBeVisible();
    await expect(panel.getByRole("link", { name: "Download cover.png" })).toHaveAttribute("href", /\/content\/\?project=/);
    expect(progress.length).toBeGreaterThan(0);
    const stored = await call("/api/collections/albums/documents/al1/");
    expect(stored.body.cover).toMatchObject({ name: "cover.png", content_type: "image/png" });
    await snap(page, "widgets-file-field");
  });

  await test.step("Save after the upload patches only what was typed", async () => {
    await panel.getByLabel(/^title/).fill("Blue (remastered)");
    const patch = page.waitForRequest((r) => r.method() === "PATCH" && r.url().endsWith("/collections/albums/documents/al1/"));
    await panel.getByRole("button", { name: "Save document" }).click();
    expect(JSON.parse((await patch).postData() ?? "{}")).toEqual({ title: "Blue (remastered)" });
    await expect(page.getByRole("dialog")).toHaveCount(0);
    const stored = await call("/api/collections/albums/documents/al1/");
    expect(stored.body).toMatchObject({ title: "Blue (remastered)", cover: { name: "cover.png" } });
  });

  await test.step("a refused type says so under the field", async () => {
    await page.getByRole("button", { name: "Edit al1" }).click();
    const again = page.getByRole("dialog", { name: "Document al1" });
    const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(120)]);
    await again.getByLabel(/^cover/).setInputFiles({ name: "tool.bin", mimeType: "application/octet-stream", buffer: elf });
    await expect(again.getByTestId("file-field-cover").getByRole("alert")).toContainText("This file type is not allowed");
  });

  await test.step("Remove takes the file out; the Save unsets the property and the file goes", async () => {
    const again = page.getByRole("dialog", { name: "Document al1" });
    const coverId = (await call("/api/collections/albums/documents/al1/")).body.cover._id;
    await again.getByRole("button", { name: "Remove cover.png from cover" }).click();
    await expect(again.getByTestId("file-field-cover")).toContainText("The file is deleted when you save the document.");
    const patch = page.waitForRequest((r) => r.method() === "PATCH" && r.url().endsWith("/collections/albums/documents/al1/"));
    await again.getByRole("button", { name: "Save document" }).click();
    expect(JSON.parse((await patch).postData() ?? "{}")).toEqual({ cover: null });
    await expect(page.getByRole("dialog")).toHaveCount(0);
    expect((await call("/api/collections/albums/documents/al1/")).body).toEqual({ _id: "al1", title: "Blue (remastered)" });
    expect((await call(`/api/collections/_files/documents/${coverId}/`)).status).toBe(404);
  });
});

test("quick search without a text index: any case, escaped, kept in the address", async ({ page }) => {
  const schema = { properties: { name: { type: "string", position: 1 }, city: { type: "string", position: 2 }, age: { type: "integer", position: 3 } } };
  expect((await call("/api/collections/", { json: { _id: "people", schema } })).status).toBe(201);
  const people = [
    { _id: "p1", name: "Ada", city: "London", age: 36 },
    { _id: "p2", name: "Alan", city: "Manchester", age: 41 },
    { _id: "p3", name: "a.b", city: "Paris", age: 1 },
    { _id: "p4", name: "axb", city: "Avalon", age: 2 },
  ];
  for (const person of people) expect((await call("/api/collections/people/documents/", { json: person })).status).toBe(201);
  await page.goto(`/projects/${projectId}/collections/people`);
  await expect(page.getByTestId("documents-total")).toHaveText("4 documents · page 1 of 1");
  await expect(page.getByRole("searchbox", { name: "Full-text search" })).toHaveCount(0);
  const box = page.getByRole("searchbox", { name: "Quick search" });

  await test.step("matches any string property, any case; the search is in the address", async () => {
    await box.fill("LON");
    await box.press("Enter");
    await expect(page).toHaveURL(/[?&]q=LON/);
    await expect(page.getByTestId("documents-total")).toHaveText("2 documents · page 1 of 1");
    await expect(page.getByTestId("document-p1")).toBeVisible();
    await expect(page.getByTestId("document-p4")).toBeVisible(); // Avalon
  });

  await test.step("regex characters are text: a.b does not match axb", async () => {
    await box.fill("a.b");
    await box.press("Enter");
    await expect(page.getByTestId("documents-total")).toHaveText("1 document · page 1 of 1");
    await expect(page.getByTestId("document-p3")).toBeVisible();
  });

  await test.step("a reload keeps it, with the filter beside it; Clear shows everything", async () => {
    await page.goto(`/projects/${projectId}/collections/people?q=lon&filter=${encodeURIComponent(JSON.stringify({ age: { $gt: 30 } }))}`);
    await expect(page.getByRole("searchbox", { name: "Quick search" })).toHaveValue("lon");
    await expect(page.getByTestId("documents-total")).toHaveText("1 document · page 1 of 1");
    await page.getByRole("search", { name: "Quick search" }).getByRole("button", { name: "Clear" }).click();
    await expect(page).not.toHaveURL(/[?&]q=/);
    await expect(page.getByTestId("documents-total")).toHaveText("2 documents · page 1 of 1"); // the filter stays
    await expectNoSeriousViolations(page, "main");
  });
});

test("resizable columns: by keyboard and by dragging, remembered per collection", async ({ page }) => {
  await page.goto(`/projects/${projectId}/collections/people`);
  const header = page.getByTestId("column-name");
  const handle = page.getByRole("separator", { name: "Resize column name" });
  await expect(handle).toBeVisible();
  const before = (await header.boundingBox())!.width;

  await test.step("arrow keys widen by 16 px a press", async () => {
    await handle.focus();
    for (let i = 0; i < 4; i++) await handle.press("ArrowRight");
    await expect.poll(async () => Math.round((await header.boundingBox())!.width)).toBe(Math.round(before) + 64);
    await expect(handle).toHaveAttribute("aria-valuenow", String(Math.round(before) + 64));
  });

  await test.step("a drag sets the width", async () => {
    const box = (await handle.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 100, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await expect.poll(async () => Math.round((await header.boundingBox())!.width)).toBe(Math.round(before) + 164);
  });

  await test.step("kept across a reload, for this collection only; Delete goes back to automatic", async () => {
    await page.reload();
    await expect.poll(async () => Math.round((await page.getByTestId("column-name").boundingBox())!.width)).toBe(Math.round(before) + 164);
    const stored = await page.evaluate((key) => localStorage.getItem(key), `arca:column-widths:${projectId}/people`);
    expect(JSON.parse(stored!)).toEqual({ name: Math.round(before) + 164 });
    await snap(page, "widgets-resized-columns");
    await page.getByRole("separator", { name: "Resize column name" }).press("Delete");
    await expect.poll(async () => page.evaluate((key) => localStorage.getItem(key), `arca:column-widths:${projectId}/people`)).toBe("{}");
  });
});

test("tokens: created and last-used dates, from a dashboard-only read", async ({ page }) => {
  const used = await createTokenViaApi(session, projectId, { allow: { all: true } });
  const idle = await call("/api/collections/_tokens/documents/", { json: { _id: "idle-token", name: "idle", permission: { allow: { all: true } } } });
  expect(idle.status).toBe(201);
  expect((await api("/api/collections/", { token: used, project: projectId })).status).toBe(200);
  const tokens = (await call("/api/collections/_tokens/documents/")).body.items as { _id: string; name: string }[];
  // The API's records keep their contract shape: no dates there.
  for (const token of tokens) expect(Object.keys(token).sort()).toEqual(["_id", "is_active", "name", "permission"]);
  const usedId = tokens.find((t) => t.name === "e2e")!._id;

  await page.goto(`/projects/${projectId}/tokens`);
  const idleRow = page.getByTestId("token-idle-token");
  await expect(idleRow.getByTestId("token-dates")).toContainText("Created");
  await expect(idleRow.getByTestId("token-dates")).toContainText("Never used");
  const createdAt = await idleRow.getByTestId("token-dates").locator("time").first().getAttribute("datetime");
  expect(Date.now() - Date.parse(createdAt!)).toBeLessThan(10 * 60_000);
  // The use is flushed within seconds (a background job); the page shows it after a reload.
  await expect
    .poll(
      async () => {
        await page.reload();
        return page.getByTestId(`token-${usedId}`).getByTestId("token-dates").textContent({ timeout: 5_000 });
      },
      { timeout: 30_000 },
    )
    .toContain("Last used just now");
  await snap(page, "widgets-token-dates");
});

test("tokens: renamed and given other permissions on the Tokens page; entries the matrix cannot show are kept", async ({ page }) => {
  const where = { what: "document", where: "books", what_id: "b1" };
  const made = await call("/api/collections/_tokens/documents/", { json: { _id: "edit-me", name: "old name", permission: { allow: { read: ["posts", where] } } } });
  expect(made.status).toBe(201);
  await page.goto(`/projects/${projectId}/tokens`);
  await page.getByRole("button", { name: "Edit token old name" }).click();
  const form = page.getByRole("form", { name: "Edit token" });
  await expect(form.getByLabel("read posts")).toBeChecked();
  await expect(form).toContainText("Also kept as set through the API: read books/b1");
  await form.getByLabel("Name", { exact: true }).fill("new name");
  await form.getByLabel("write posts").check();
  await form.getByRole("button", { name: "Save token" }).click();
  await expect(form).toHaveCount(0);
  await expect(page.getByTestId("token-edit-me")).toContainText("new name");
  const saved = (await call("/api/collections/_tokens/documents/edit-me/")).body;
  expect(saved).toMatchObject({ name: "new name", is_active: true, permission: { allow: { all: false, read: ["posts", where], write: ["posts"], update: [], delete: [] } } });
});

test("a null typed in the JSON editor is stored as null; only the changed keys are sent, so others' changes survive", async ({ page }) => {
  expect((await call("/api/collections/notes/documents/", { json: { _id: "n1", k: "v", o: { p: 1, q: 2 }, t: "a" } })).status).toBe(201);
  await page.goto(`/projects/${projectId}/collections/notes`);
  await page.getByRole("button", { name: "Edit n1" }).click();
  const editor = page.getByLabel("Document (JSON)");
  const text = (await editor.textContent()) ?? "";
  await editor.fill(text.replace('"k": "v"', '"k": null').replace('"p": 1', '"p": null'));
  // A merge patch would read these nulls as "remove": the changed keys go whole, as a plain PATCH.
  const withNulls = page.waitForRequest((r) => r.method() === "PATCH" && r.url().includes("/documents/n1/"));
  await page.getByRole("button", { name: "Save document" }).click();
  const sent = await withNulls;
  expect(sent.headers()["content-type"]).toBe("application/json");
  expect(sent.postDataJSON()).toEqual({ k: null, o: { p: null, q: 2 } });
  await expect(page.getByRole("dialog")).toHaveCount(0);
  expect((await call("/api/collections/notes/documents/n1/")).body).toEqual({ _id: "n1", k: null, o: { p: null, q: 2 }, t: "a" });

  // The document now holds nulls; an edit of another key is a merge patch of that key alone, so a
  // change made elsewhere while the editor was open is kept (a whole PUT overwrote it).
  await page.getByRole("button", { name: "Edit n1" }).click();
  const again = (await editor.textContent()) ?? "";
  expect((await call("/api/collections/notes/documents/n1/", { method: "PATCH", json: { t: "changed elsewhere" } })).status).toBe(200);
  await editor.fill(again.replace('"q": 2', '"q": 3'));
  const patch = page.waitForRequest((r) => r.method() === "PATCH" && r.url().includes("/documents/n1/"));
  await page.getByRole("button", { name: "Save document" }).click();
  const merge = await patch;
  expect(merge.headers()["content-type"]).toBe("application/merge-patch+json");
  expect(merge.postDataJSON()).toEqual({ o: { q: 3 } });
  await expect(page.getByRole("dialog")).toHaveCount(0);
  expect((await call("/api/collections/notes/documents/n1/")).body).toEqual({ _id: "n1", k: null, o: { p: null, q: 3 }, t: "changed elsewhere" });
});

test("a page past the end shows the last page; the heading's count follows live changes", async ({ page }) => {
  for (let i = 1; i <= 12; i++) expect((await call("/api/collections/paged/documents/", { json: { _id: `d${String(i).padStart(2, "0")}` } })).status).toBe(201);
  await page.goto(`/projects/${projectId}/collections/paged?per_page=10&page=99`);
  await expect(page.getByTestId("documents-total")).toHaveText("12 documents · page 2 of 2");
  await expect(page.getByTestId("document-d12")).toBeVisible();
  await expect(page).toHaveURL(/page=2/);
  await expect(page.getByTestId("collection-count")).toHaveText("12 documents");
  // Changes made elsewhere reach the table and the heading alike.
  await expect(page.getByTestId("live-status")).toHaveAttribute("data-state", "live");
  for (const id of ["d11", "d12"]) expect((await call(`/api/collections/paged/documents/${id}/`, { method: "DELETE" })).status).toBe(204);
  await expect(page.getByTestId("collection-count")).toHaveText("10 documents");
  await expect(page.getByTestId("documents-total")).toHaveText("10 documents · page 1 of 1");
  await expect(page.getByTestId("document-d01")).toBeVisible();
});
