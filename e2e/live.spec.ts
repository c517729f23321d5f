import { createHash } from "node:crypto";
import { expect, test, type Browser, type BrowserContext, type Page, type Request } from "@playwright/test";
import { api, BASE_URL, createProjectViaApi, signUpViaApi, uniqueEmail } from "./support/api";
import { signIn } from "./support/sign-in";

/**
 * Issue 12 (dashboard) and issue 13 (dashboard): the documents table and the files list follow
 * the change feed in a second signed-in browser context without reload, and resume with
 * Last-Event-ID after its network was cut; processors configured through the schema editor's
 * forms, their outputs shown in the document panel.
 */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mP8/x8AAwMCAO+ip1sAAAAASUVORK5CYII=", "base64");

async function newSignedIn(browser: Browser, email: string, password: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: BASE_URL, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await signIn(page, email, password);
  return { context, page };
}

/** The change-feed requests a page makes, with every header the browser sent. */
function feedRequests(page: Page): { url: string; headers: Promise<Record<string, string>> }[] {
  const seen: { url: string; headers: Promise<Record<string, string>> }[] = [];
  page.on("request", (request: Request) => {
    if (request.url().includes("/events/")) seen.push({ url: request.url(), headers: request.allHeaders() });
  });
  return seen;
}

async function owner(label: string) {
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;
  const email = uniqueEmail(label);
  const password = `${label} password`;
  const projectId = `${label}-${suffix}`;
  const session = await signUpViaApi(email, password);
  await createProjectViaApi(session, projectId);
  const call = (path: string, options: Parameters<typeof api>[1] = {}) => api(path, { session, project: projectId, ...options });
  return { email, password, projectId, session, call, base: `/projects/${projectId}` };
}

test("documents and files update live in a second context, and resume with Last-Event-ID after a network drop", async ({ browser }) => {
  test.setTimeout(150_000);
  const { email, password, projectId, call, base } = await owner("live");
  expect((await call("/api/collections/", { json: { _id: "notes", schema: { type: "object", properties: { title: { type: "string", position: 1 } } } } })).status).toBe(201);
  const a = await newSignedIn(browser, email, password);
  const b = await newSignedIn(browser, email, password);
  const requestsB = feedRequests(b.page);

  await test.step("documents: a document created in A's form appears in B, flashed, without reload", async () => {
    await a.page.goto(`${base}/collections/notes`);
    await b.page.goto(`${base}/collections/notes`);
    // A marker on B's window: a reload would lose it.
    await b.page.evaluate(() => ((window as unknown as { liveMarker: number }).liveMarker = 42));
    await expect(a.page.getByTestId("live-status")).toHaveAttribute("data-state", "live");
    await expect(b.page.getByTestId("live-status")).toHaveAttribute("data-state", "live");
    await expect(b.page.getByText("No documents yet.")).toBeVisible();
    expect(requestsB[0].url).toContain(`/api/collections/notes/events/?project=${projectId}`);

    await a.page.getByRole("button", { name: "New document" }).click();
    const form = a.page.getByRole("form", { name: "New document" });
    await form.locator('input[name="_id"]').fill("from-a");
    await form.locator('input[name="title"]').fill("Written in A");
    await form.getByRole("button", { name: "Create document" }).click();

    const row = b.page.getByTestId("document-from-a");
    await expect(row).toContainText("Written in A");
    await expect(row).toHaveClass(/live-flash/);
    // An update through the API reaches B too, in place.
    expect((await call("/api/collections/notes/documents/from-a/", { method: "PATCH", json: { title: "Changed by the API" } })).status).toBe(200);
    await expect(row).toContainText("Changed by the API");
  });

  await test.step("documents: B offline, a write meanwhile, B back: the write appears (resumed, not reloaded)", async () => {
    const before = requestsB.length;
    await b.context.setOffline(true);
    await expect(b.page.getByTestId("live-status")).toHaveAttribute("data-state", "reconnecting");
    expect((await call("/api/collections/notes/documents/", { json: { _id: "while-offline", title: "Written while B was offline" } })).status).toBe(201);
    await b.context.setOffline(false);
    await expect(b.page.getByTestId("document-while-offline")).toContainText("Written while B was offline");
    await expect(b.page.getByTestId("live-status")).toHaveAttribute("data-state", "live");
    // The reconnection named the position B had reached.
    const resumed = await Promise.all(requestsB.slice(before).map(async (r) => ({ url: r.url, headers: await r.headers })));
    expect(resumed.some((r) => /^\d+$/.test(r.headers["last-event-id"] ?? "") || /[?&]last_event_id=\d+/.test(r.url))).toBe(true);
    // A deletion in A removes the row in B.
    expect((await call("/api/collections/notes/documents/from-a/", { method: "DELETE" })).status).toBe(204);
    await expect(b.page.getByTestId("document-from-a")).toHaveCount(0);
    expect(await b.page.evaluate(() => (window as unknown as { liveMarker?: number }).liveMarker)).toBe(42);
  });

  await test.step("files: an upload in A appears in B's list; another during B's network cut appears once B is back", async () => {
    await a.page.goto(`${base}/files`);
    await b.page.goto(`${base}/files`);
    await b.page.evaluate(() => ((window as unknown as { liveMarker: number }).liveMarker = 7));
    await expect(a.page.getByTestId("live-status")).toHaveAttribute("data-state", "live");
    await expect(b.page.getByTestId("live-status")).toHaveAttribute("data-state", "live");
    const before = requestsB.length;
    expect(requestsB.at(-1)?.url).toContain(`/api/collections/_files/events/?project=${projectId}`);

    await a.page.getByLabel("Choose files").setInputFiles({ name: "first-live.png", mimeType: "image/png", buffer: PNG });
    const list = b.page.getByRole("list", { name: "Files" });
    await expect(list).toContainText("first-live.png");
    await expect(list.locator("li", { hasText: "first-live.png" })).toHaveClass(/live-flash/);

    await b.context.setOffline(true);
    await expect(b.page.getByTestId("live-status")).toHaveAttribute("data-state", "reconnecting");
    await a.page.getByLabel("Choose files").setInputFiles({ name: "second-live.png", mimeType: "image/png", buffer: PNG });
    await expect(a.page.getByRole("list", { name: "Files" })).toContainText("second-live.png");
    await b.context.setOffline(false);
    await expect(list).toContainText("second-live.png");
    const resumed = await Promise.all(requestsB.slice(before).map(async (r) => ({ url: r.url, headers: await r.headers })));
    expect(resumed.some((r) => /^\d+$/.test(r.headers["last-event-id"] ?? "") || /[?&]last_event_id=\d+/.test(r.url))).toBe(true);
    expect(await b.page.evaluate(() => (window as unknown as { liveMarker?: number }).liveMarker)).toBe(7);
  });

  await a.context.close();
  await b.context.close();
});

test("processors: configured with the schema editor's forms (422 inline), outputs shown in the document panel", async ({ page }) => {
  test.setTimeout(120_000);
  const { email, password, projectId, session, call, base } = await owner("procs");
  expect(
    (
      await call("/api/collections/", {
        json: {
          _id: "pages",
          schema: {
            type: "object",
            properties: {
              title: { type: "string", position: 1 },
              digest: { type: "string", position: 2 },
              body: { type: "string", position: 3 },
              body_html: { type: "string", position: 4, processors: [{ name: "markdown", in: { text: { property: "body" } } }] },
              photo: { type: "file", position: 5 },
              thumb: { type: "file", position: 6, processors: [{ name: "resize", in: { original_image: { property: "photo" }, size: { value: [4, 4] } } }] },
              voice: { type: "file", position: 7, processors: [{ name: "text_to_speech", in: { text: { property: "title" }, format: { value: "wav" } } }] },
            },
          },
        },
      })
    ).status,
  ).toBe(201);
  await signIn(page, email, password);

  await test.step("a new step has an input for each required argument; the API's 422 shows under the property's processors", async () => {
    await page.goto(`${base}/collections/pages/definition`);
    const digest = page.getByTestId("processors-of-digest");
    await digest.locator("summary").click();
    // A resize's size is a value only: it once had no input at all, and every save was a 422.
    await digest.getByLabel("Add a processor").selectOption("resize");
    await digest.getByRole("button", { name: "Add", exact: true }).click();
    await expect(digest.getByLabel("size [width, height]: width")).toHaveValue("800");
    await digest.getByRole("button", { name: "Remove step 1" }).click();
    await digest.getByLabel("Add a processor").selectOption("template");
    await digest.getByRole("button", { name: "Add", exact: true }).click();
    // Handlebars' `log` helper would write document values to the server's console: refused.
    await digest.getByLabel("template: value").fill("{{log title}}");
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(digest.getByTestId("processor-errors")).toContainText("template_string");
  });

  await test.step("an md5 of another property through the form, saved into the schema", async () => {
    const digest = page.getByTestId("processors-of-digest");
    await digest.getByRole("button", { name: "Remove step 1" }).click();
    await digest.getByLabel("Add a processor").selectOption("md5");
    await digest.getByRole("button", { name: "Add", exact: true }).click();
    await digest.getByLabel("text: from").selectOption("property");
    await digest.getByLabel("text: property path").fill("title");
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByText("Collection saved.")).toBeVisible();
    const saved = await call("/api/collections/pages/");
    expect(saved.body.schema.properties.digest.processors).toEqual([{ name: "md5", in: { text: { property: "title" } } }]);
  });

  await test.step("a document created in the form shows the digest; its panel shows a thumbnail, a player and HTML as text", async () => {
    await page.goto(`${base}/collections/pages`);
    await page.getByRole("button", { name: "New document" }).click();
    const form = page.getByRole("form", { name: "New document" });
    await form.locator('input[name="_id"]').fill("p1");
    await form.locator('input[name="title"]').fill("hello");
    await form.locator('input[name="body"]').fill("# Heading <script>alert(1)</script>");
    await form.getByRole("button", { name: "Create document" }).click();
    const md5 = createHash("md5").update("hello").digest("hex");
    await expect(page.getByTestId("document-p1")).toContainText(md5);

    // A photo onto the document: the resize processor stores a thumbnail file.
    const upload = new FormData();
    upload.append("file", new Blob([PNG], { type: "image/png" }), "photo.png");
    const put = await fetch(`${BASE_URL}/api/collections/pages/documents/p1/photo/`, {
      method: "PUT",
      headers: { authorization: `SessionId ${session}`, "x-project": projectId },
      body: upload,
    });
    expect(put.status).toBeLessThan(300);
    await expect(page.getByTestId("document-p1")).toContainText("photo.png");

    await page.getByRole("button", { name: "Edit p1" }).click();
    const outputs = page.getByTestId("processed-outputs");
    await expect(outputs.getByTestId("output-digest")).toContainText(md5);
    await expect(outputs.getByRole("img", { name: "Thumbnail of photo.png" })).toBeVisible();
    await expect(outputs.getByLabel("Play voice.wav")).toBeVisible();
    const html = outputs.getByTestId("output-body_html");
    await expect(html.getByLabel("HTML, shown as text")).toContainText("<h1>");
    await expect(html.locator("h1")).toHaveCount(0);
    await expect(html).not.toContainText("<script>");
  });

  await test.step("renaming a field in the designer carries the processors reading it and its index along", async () => {
    expect((await call("/api/collections/pages/", { method: "PATCH", json: { indexes: [{ type: "simple", property: "body", unique: true }] } })).status).toBe(200);
    await page.goto(`${base}/collections/pages/definition`);
    await page.getByRole("button", { name: "Fields", exact: true }).click();
    const name = page.getByLabel("Name of field 3", { exact: true });
    await expect(name).toHaveValue("body");
    await name.fill("text");
    await name.blur();
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByText("Collection saved.")).toBeVisible();
    const saved = (await call("/api/collections/pages/")).body;
    expect(Object.keys(saved.schema.properties)).not.toContain("body");
    expect(saved.schema.properties.body_html.processors[0].in.text).toEqual({ property: "text" });
    expect(saved.indexes).toEqual([expect.objectContaining({ type: "simple", property: "text", unique: true })]);
  });
});
