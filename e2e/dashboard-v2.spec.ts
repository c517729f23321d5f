import { gunzipSync } from "node:zlib";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { api, BASE_URL, createProjectViaApi, signUpViaApi, uniqueEmail } from "./support/api";
import { signIn } from "./support/sign-in";

/**
 * The walk-through's bugs of issue 14, one step each: every assertion here failed before its fix.
 * One owner, one member, one project; collections made through the API where the UI is not the point.
 */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mP8/x8AAwMCAO+ip1sAAAAASUVORK5CYII=", "base64");

async function newSignedIn(browser: Browser, email: string, password: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: BASE_URL, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await signIn(page, email, password);
  return page;
}

test("issue 14 bugs: schema placeholder, errors where the action was, roles, upload messages, Tab, pinned actions, template, URL state, page basics", async ({ page, browser }) => {
  test.setTimeout(120_000);
  const suffix = Date.now().toString(36);
  const email = uniqueEmail("v2owner");
  const password = "owner password v2";
  const projectId = `v2-${suffix}`;
  const session = await signUpViaApi(email, password);
  await createProjectViaApi(session, projectId, `Shelf ${suffix}`);
  const base = `/projects/${projectId}`;
  const call = (path: string, options: Parameters<typeof api>[1] = {}) => api(path, { session, project: projectId, ...options });
  await signIn(page, email, password);

  await test.step("bug 1: a new collection has no schema unless one is typed (the example is a placeholder)", async () => {
    await page.goto(`${base}/collections`);
    await page.getByRole("button", { name: "New collection" }).click();
    const form = page.getByRole("form", { name: "New collection" });
    await form.getByLabel("Collection ID").fill("notes");
    const schema = form.getByLabel("Schema (JSON Schema)", { exact: true });
    await expect(schema).toContainText('"title"'); // the placeholder
    await expect(form.locator(".cm-placeholder")).toBeVisible();
    await form.getByRole("button", { name: "Create collection" }).click();
    await expect(page).toHaveURL(`${base}/collections/notes`);
    // Any document is accepted: no "title: is required".
    expect((await call("/api/collections/notes/documents/", { json: { anything: 1 } })).status).toBe(201);
  });

  await test.step("bug 7: the new-document template follows position order, sets only required properties and leaves unique ones out", async () => {
    const created = await call("/api/collections/", {
      json: {
        _id: "books",
        schema: {
          type: "object",
          properties: {
            year: { type: "integer", position: 2 },
            isbn: { type: "string", position: 3 },
            title: { type: "string", position: 1, required: true },
            cover: { type: "file", position: 4 },
            sold_out: { type: "boolean", position: 5 },
            published: { type: "datetime", position: 6 },
          },
        },
        indexes: [{ type: "simple", property: "isbn", unique: true }],
      },
    });
    expect(created.status).toBe(201);
    await page.goto(`${base}/collections/books`);
    await page.getByRole("button", { name: "New document" }).click();
    // The form lists the fields in position order too.
    const form = page.getByTestId("schema-form");
    await expect(form.locator("label")).toHaveText([/^_id/, /^title/, /^year/, /^isbn/, /^cover/, /^sold_out/, /^published/]);
    // Name and type read apart ("year, integer", not "yearinteger").
    await expect(form.getByLabel(/^year, integer$/)).toHaveCount(1);
    // Optional fields start blank: nothing the user did not enter is stored.
    await expect(form.getByLabel(/^year, integer$/)).toHaveValue("");
    await page.getByRole("button", { name: "JSON", exact: true }).click();
    const editor = page.getByLabel("Document (JSON)", { exact: true });
    await expect(editor).toContainText('"title": ""');
    const text = (await editor.textContent()) ?? "";
    for (const absent of ["year", "isbn", "cover", "sold_out", "published"]) expect(text).not.toContain(absent);
    // Two documents from the untouched template: no 409.
    await page.getByRole("button", { name: "Create document" }).click();
    await expect(page.getByTestId("documents-total")).toHaveText("1 document · page 1 of 1");
    await page.getByRole("button", { name: "New document" }).click();
    await page.getByRole("button", { name: "JSON", exact: true }).click();
    await page.getByRole("button", { name: "Create document" }).click();
    await expect(page.getByTestId("documents-total")).toHaveText("2 documents · page 1 of 1");
  });

  await test.step("bug 5: Tab leaves the filter box (no keyboard trap); Ctrl+Enter applies it", async () => {
    const filter = page.getByLabel("Filter", { exact: true });
    await filter.click();
    await page.keyboard.press("Tab");
    await expect(page.getByRole("button", { name: "Apply filter" })).toBeFocused();
    await page.keyboard.press("Shift+Tab");
    await expect(filter).toBeFocused();
    await filter.fill('{"year": {"$gt": 5}}');
    await page.keyboard.press("Control+Enter");
    await expect(page.getByTestId("documents-total")).toHaveText(/^0 documents/);
  });

  await test.step("bug 9: page, page size, sort and filter live in the address and survive a reload", async () => {
    for (let n = 1; n <= 30; n++) expect((await call("/api/collections/books/documents/", { json: { _id: `b${String(n).padStart(2, "0")}`, title: `Book ${n}`, year: n } })).status).toBe(201);
    await page.goto(`${base}/collections/books`);
    await page.getByLabel("Filter", { exact: true }).fill('{"year": {"$gte": 1}}');
    await page.getByRole("button", { name: "Apply filter" }).click();
    await expect(page.getByTestId("documents-total")).toHaveText("30 documents · page 1 of 2");
    await page.getByLabel("Per page").selectOption("10");
    await expect(page.getByTestId("documents-total")).toHaveText("30 documents · page 1 of 3");
    const table = page.getByRole("table", { name: "Documents of books" });
    await table.getByRole("button", { name: "year" }).click();
    // The sort lives in the address: the second click reads the first one's, once it is there.
    await expect(table.getByRole("columnheader", { name: "year" })).toHaveAttribute("aria-sort", "ascending");
    await table.getByRole("button", { name: "year" }).click();
    await expect(table.getByRole("columnheader", { name: "year" })).toHaveAttribute("aria-sort", "descending");
    await page.getByRole("button", { name: "Next" }).click();
    await expect(page.getByTestId("documents-total")).toHaveText("30 documents · page 2 of 3");
    const url = new URL(page.url());
    expect(url.searchParams.get("page")).toBe("2");
    expect(url.searchParams.get("per_page")).toBe("10");
    expect(url.searchParams.get("sort")).toBe("-year");
    expect(JSON.parse(url.searchParams.get("filter") ?? "null")).toEqual({ year: { $gte: 1 } });
    await page.reload();
    await expect(page.getByTestId("documents-total")).toHaveText("30 documents · page 2 of 3");
    await expect(table.locator("tbody tr").first()).toContainText("Book 20");
    await expect(page.getByLabel("Filter", { exact: true })).toContainText('"$gte": 1');
    // Jump straight to a page.
    await page.getByLabel("Page", { exact: true }).fill("3");
    await page.getByRole("button", { name: "Go" }).click();
    await expect(page.getByTestId("documents-total")).toHaveText("30 documents · page 3 of 3");
    await expect(page).toHaveURL(/page=3/);
  });

  await test.step("bug 6: with many columns the Edit and Delete buttons stay in view at 1280 px", async () => {
    const wide: Record<string, unknown> = { _id: "wide" };
    for (let i = 1; i <= 10; i++) wide[`a_rather_long_property_name_${i}`] = "a value long enough to need room in a table cell";
    expect((await call("/api/collections/wide/documents/", { json: wide })).status).toBe(201);
    await page.goto(`${base}/collections/wide`);
    const row = page.getByTestId("document-wide");
    await expect(row).toBeVisible();
    await expect(row.getByRole("button", { name: "Edit wide" })).toBeInViewport();
    await expect(row.getByRole("button", { name: "Delete wide" })).toBeInViewport();
  });

  await test.step("bug 2: a 409 on save is shown beside the Save button and takes focus", async () => {
    expect((await call("/api/collections/dupes/documents/", { json: { code: "same" } })).status).toBe(201);
    expect((await call("/api/collections/dupes/documents/", { json: { code: "same" } })).status).toBe(201);
    await page.goto(`${base}/collections/dupes/definition`);
    await page.getByRole("button", { name: "Add index" }).click();
    await page.getByLabel("Index 1 property").fill("code");
    await page.getByLabel("Unique").check();
    await page.getByRole("button", { name: "Save changes" }).click();
    const error = page.getByTestId("save-error");
    await expect(error).toBeFocused();
    await expect(error).toBeInViewport();
    await expect(error.getByRole("alert")).not.toBeEmpty();
  });

  await test.step("bug 4: an upload refused by the schema names the property", async () => {
    await page.goto(`${base}/files`);
    await page.getByLabel("A document property").check();
    await page.getByLabel("Collection", { exact: true }).selectOption("books");
    await page.getByLabel("Document ID").fill("b01");
    await page.getByLabel("Property", { exact: true }).fill("title");
    await page.getByLabel("Choose files").setInputFiles({ name: "cover.png", mimeType: "image/png", buffer: PNG });
    const row = page.getByTestId("upload").filter({ hasText: "cover.png" });
    await expect(row.getByRole("alert")).toContainText("title");
    await expect(row.getByRole("alert")).not.toHaveText("Validation error");
  });

  await test.step("bug 10: favicon, compression, titles naming the place, a main landmark", async () => {
    const icon = await fetch(`${BASE_URL}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toMatch(/image\//);

    // fetch() would decode gzip itself: ask with node's raw bytes instead.
    const signin = await rawGet("/signin");
    expect(signin.encoding).toBe("gzip");
    expect(gunzipSync(signin.body).toString()).toContain("<html");
    const script = /\/_next\/static\/[^"]+\.js/.exec(gunzipSync(signin.body).toString())?.[0];
    expect(script).toBeTruthy();
    const js = await rawGet(script!);
    expect(js.encoding).toBe("gzip");
    // The figure for docs/dashboard.md: the sign-in page's scripts, raw and as sent.
    const scripts = [...new Set(gunzipSync(signin.body).toString().match(/\/_next\/static\/[^"]+\.js/g) ?? [])];
    let raw = 0;
    let sent = 0;
    for (const src of scripts) {
      const answer = await rawGet(src);
      sent += answer.body.length;
      raw += answer.encoding === "gzip" ? gunzipSync(answer.body).length : answer.body.length;
    }
    console.info(`/signin scripts: ${scripts.length} files, ${Math.round(raw / 1024)} KB raw, ${Math.round(sent / 1024)} KB sent gzipped`);
    // /api/ stays as it was.
    expect((await rawGet("/api/health")).encoding).toBeUndefined();

    await page.goto(`${base}/collections/books`);
    await expect(page).toHaveTitle(`books · Documents · Shelf ${suffix} · Arca`);
    await expect(page.getByRole("main")).toHaveCount(1);
    await page.goto(`${base}/tokens`);
    await expect(page).toHaveTitle(`Tokens · Shelf ${suffix} · Arca`);
    await expect(page.getByRole("main")).toHaveCount(1);
    await page.goto(`${base}/hooks`);
    await expect(page).toHaveTitle(`Hooks · Shelf ${suffix} · Arca`);
    await page.goto(`${base}/hooks/new`);
    await expect(page).toHaveTitle(`New hook · Shelf ${suffix} · Arca`);
  });

  const memberEmail = uniqueEmail("v2member");
  await test.step("bug 3: a member sees tokens without controls; read-only system tables have no New/Edit/Delete", async () => {
    await signUpViaApi(memberEmail, "member password v2");
    expect((await call("/api/collections/_users/documents/", { json: { _id: memberEmail, role: "member" } })).status).toBe(201);
    expect((await call("/api/collections/_tokens/documents/", { json: { name: "site", permission: { allow: { read: ["books"] } } } })).status).toBe(201);
    const member = await newSignedIn(browser, memberEmail, "member password v2");
    await member.goto(`${base}/tokens`);
    await expect(member.getByText("Only the project's owner or an admin can create, deactivate or delete tokens.")).toBeVisible();
    await expect(member.getByRole("list", { name: "Tokens" })).toContainText("site");
    await expect(member.getByRole("button", { name: /Deactivate|Delete|Create token/ })).toHaveCount(0);
    // The generic tables of what only owners and admins manage offer a member nothing to write either.
    for (const system of ["_users", "_tokens", "_hooks"]) {
      await member.goto(`${base}/collections/${system}`);
      await expect(member.getByTestId("documents-total")).toBeVisible();
      await expect(member.getByRole("button", { name: /^(New document|Edit |Delete )/ })).toHaveCount(0);
      await expect(member.getByRole("link", { name: /^(New token|New hook|Invite a member)$/ })).toHaveCount(0);
    }
    await member.context().close();

    // The owner makes tokens on the Tokens page, where the secret is shown once: the generic table
    // would lose it. Hooks and members have their pages too.
    for (const [system, label, path] of [["_tokens", "New token", "tokens"], ["_hooks", "New hook", "hooks/new"], ["_users", "Invite a member", "members"]]) {
      await page.goto(`${base}/collections/${system}`);
      await expect(page.getByTestId("documents-total")).toBeVisible();
      await expect(page.getByRole("button", { name: "New document" })).toHaveCount(0);
      await expect(page.getByRole("link", { name: label })).toHaveAttribute("href", `${base}/${path}`);
    }
    await page.goto(`${base}/collections/_tokens`);
    await page.getByRole("button", { name: /^Edit / }).first().click();
    // Its schema describes _id too; the form shows one _id box all the same.
    await expect(page.getByTestId("schema-form").getByLabel(/^_id/)).toHaveCount(1);

    for (const system of ["_usage", "_debug"]) {
      await page.goto(`${base}/collections/${system}`);
      await expect(page.getByTestId("documents-total")).toBeVisible();
      await expect(page.getByRole("button", { name: /^(New document|Edit |Delete )/ })).toHaveCount(0);
    }
  });

  await test.step("bug 10: suspending a member and deactivating a token ask first", async () => {
    await page.goto(`${base}/members`);
    await page.getByRole("button", { name: `Suspend ${memberEmail}` }).click();
    const dialog = page.getByRole("dialog", { name: `Suspend ${memberEmail}?` });
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await call(`/api/collections/_users/documents/${memberEmail}/`)).body.is_active).toBe(true);
    await page.getByRole("button", { name: `Suspend ${memberEmail}` }).click();
    await dialog.getByRole("button", { name: "Suspend" }).click();
    await expect(page.getByTestId(`member-${memberEmail}`)).toContainText("Suspended");

    await page.getByLabel(`Role of ${memberEmail}`).selectOption("admin");
    await page.getByRole("dialog", { name: `Make ${memberEmail} an admin?` }).getByRole("button", { name: "Cancel" }).click();
    expect((await call(`/api/collections/_users/documents/${memberEmail}/`)).body.role).toBe("member");
    await expect(page.getByLabel(`Role of ${memberEmail}`)).toHaveValue("member");

    await page.goto(`${base}/tokens`);
    await page.getByRole("button", { name: "Deactivate token site" }).click();
    await page.getByRole("dialog", { name: "Deactivate this token?" }).getByRole("button", { name: "Cancel" }).click();
    await expect(page.getByRole("button", { name: "Deactivate token site" })).toBeVisible();
  });
});

test("documents: schema form with field messages, row side panel, filter builder, hidden columns", async ({ page }) => {
  const suffix = Date.now().toString(36);
  const email = uniqueEmail("v2forms");
  const password = "forms password v2";
  const projectId = `v2f-${suffix}`;
  const session = await signUpViaApi(email, password);
  await createProjectViaApi(session, projectId);
  const call = (path: string, options: Parameters<typeof api>[1] = {}) => api(path, { session, project: projectId, ...options });
  expect(
    (
      await call("/api/collections/", {
        json: {
          _id: "people",
          schema: {
            type: "object",
            properties: {
              level: { type: "string", enum: ["junior", "senior"], position: 4 },
              name: { type: "string", required: true, minLength: 3, position: 1 },
              active: { type: "boolean", position: 3 },
              born: { type: "datetime", position: 2 },
              tags: { type: "array", items: { type: "string" }, position: 5 },
            },
          },
        },
      })
    ).status,
  ).toBe(201);
  await signIn(page, email, password);
  await page.goto(`/projects/${projectId}/collections/people`);

  await test.step("the form editor: inputs per type, the API's message under its field", async () => {
    await page.getByRole("button", { name: "New document" }).click();
    const panel = page.getByRole("dialog", { name: "New document" });
    await panel.getByLabel("_id").fill("ada");
    await panel.getByLabel("name").fill("Ad");
    await panel.getByRole("button", { name: "Create document" }).click();
    await expect(panel.getByTestId("field-error-name")).toBeVisible();
    await panel.getByLabel("name").fill("Ada");
    await panel.getByLabel("born").fill("1815-12-10T08:30:00");
    await panel.getByLabel("active").check();
    await panel.getByLabel("level").selectOption("senior");
    await panel.getByLabel("tags", { exact: true }).fill('["math", "engines"]');
    await panel.getByRole("button", { name: "Create document" }).click();
    await expect(panel).toBeHidden();
    const stored = (await call("/api/collections/people/documents/ada/")).body;
    expect(stored).toMatchObject({ _id: "ada", name: "Ada", active: true, level: "senior", tags: ["math", "engines"] });
    expect(typeof stored.born).toBe("string");
  });

  await test.step("a row click opens the side panel with the form; Escape closes it", async () => {
    expect((await call("/api/collections/people/documents/", { json: { _id: "bob", name: "Bob", level: "junior" } })).status).toBe(201);
    await page.reload();
    await page.getByTestId("document-bob").getByText("Bob", { exact: true }).click();
    const panel = page.getByRole("dialog", { name: "Document bob" });
    await expect(panel.getByLabel("name")).toHaveValue("Bob");
    await panel.getByLabel("name").fill("Bobby");
    const patch = page.waitForRequest((r) => r.method() === "PATCH" && r.url().includes("/documents/bob/"));
    await panel.getByRole("button", { name: "Save document" }).click();
    expect((await patch).headers()["content-type"]).toBe("application/merge-patch+json");
    await expect(page.getByTestId("document-bob")).toContainText("Bobby");
    await page.getByTestId("document-bob").getByText("Bobby", { exact: true }).click();
    await page.getByRole("dialog", { name: "Document bob" }).getByLabel("name").press("Escape");
    await expect(page.getByRole("dialog", { name: "Document bob" })).toBeHidden();
  });

  await test.step("the filter builder writes the filter JSON and applies it", async () => {
    await page.getByRole("button", { name: "Build filter" }).click();
    await page.getByLabel("Property 1").fill("level");
    await page.getByLabel("Value 1").fill("senior");
    await page.getByRole("button", { name: "Use filter" }).click();
    await expect(page.getByTestId("documents-total")).toHaveText("1 document · page 1 of 1");
    await expect(page.getByLabel("Filter", { exact: true })).toContainText('"level": "senior"');
    expect(JSON.parse(new URL(page.url()).searchParams.get("filter") ?? "null")).toEqual({ level: "senior" });
  });

  await test.step("the field-list designer writes the same JSON Schema, in the order shown", async () => {
    await page.goto(`/projects/${projectId}/collections`);
    await page.getByRole("button", { name: "New collection" }).click();
    const form = page.getByRole("form", { name: "New collection" });
    await form.getByLabel("Collection ID").fill("designed");
    await form.getByRole("button", { name: "Fields", exact: true }).click();
    await form.getByLabel("New field name").fill("title");
    await form.getByRole("button", { name: "Add field" }).click();
    await form.getByLabel("New field name").fill("year");
    await form.getByRole("combobox", { name: "New field type" }).selectOption("integer");
    await form.getByRole("button", { name: "Add field" }).click();
    await form.getByLabel("Required title").check();
    await form.getByRole("button", { name: "Move year up" }).click();
    await form.getByRole("button", { name: "Create collection" }).click();
    await expect(page).toHaveURL(/\/collections\/designed$/);
    const schema = (await call("/api/collections/designed/")).body.schema;
    expect(Object.keys(schema.properties)).toEqual(["year", "title"]);
    expect(schema.properties).toEqual({ year: { type: "integer", position: 1 }, title: { type: "string", position: 2, required: true } });
    await page.goto(`/projects/${projectId}/collections/people`);
  });

  await test.step("columns can be hidden (kept after a reload)", async () => {
    const table = page.getByRole("table", { name: "Documents of people" });
    await expect(table.getByRole("columnheader", { name: "tags" })).toHaveCount(1);
    await page.getByText("Columns", { exact: true }).click();
    await page.getByRole("group", { name: "Shown columns" }).getByLabel("tags").uncheck();
    await expect(table.getByRole("columnheader", { name: "tags" })).toHaveCount(0);
    await page.reload();
    await expect(table.getByRole("columnheader", { name: "name" })).toHaveCount(1);
    await expect(table.getByRole("columnheader", { name: "tags" })).toHaveCount(0);
  });
});

test("dark mode follows the system and toggles; ? lists the shortcuts", async ({ browser }) => {
  const email = uniqueEmail("v2dark");
  await signUpViaApi(email, "dark password v2");
  const context = await browser.newContext({ baseURL: BASE_URL, colorScheme: "dark" });
  const page = await context.newPage();
  await signIn(page, email, "dark password v2");
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe("rgb(248, 250, 252)");
  // system → light → dark → system
  await page.getByRole("button", { name: /^System theme/ }).click();
  await expect(page.locator("html")).not.toHaveClass(/\bdark\b/);
  await page.getByRole("button", { name: /^Light theme/ }).click();
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  await page.reload();
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  await expect(page.getByRole("button", { name: /^Dark theme/ })).toBeVisible();

  await page.locator("body").press("?");
  const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(help).toContainText("Ctrl+Enter");
  await page.keyboard.press("Escape");
  await expect(help).toBeHidden();
  await context.close();
});

test("axe-core: no serious or critical violations on each dashboard page", async ({ page }) => {
  test.setTimeout(120_000);
  const { default: AxeBuilder } = await import("@axe-core/playwright");
  const email = uniqueEmail("v2axe");
  const projectId = `v2a-${Date.now().toString(36)}`;
  const session = await signUpViaApi(email, "axe password v2");
  await createProjectViaApi(session, projectId, "Accessible");
  expect((await api("/api/collections/books/documents/", { session, project: projectId, json: { _id: "dune", title: "Dune", year: 1965 } })).status).toBe(201);
  const scan = async (label: string) => {
    const result = await new AxeBuilder({ page }).analyze();
    const serious = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    expect(serious, label).toEqual([]);
  };
  await page.goto("/signin");
  await scan("sign-in");
  await page.goto("/signup");
  await scan("sign-up");
  await signIn(page, email, "axe password v2");
  await scan("projects");
  const base = `/projects/${projectId}`;
  for (const [path, ready] of [
    ["", "Overview"],
    ["/collections", "books"],
    ["/collections/books", "dune"],
    ["/collections/books/definition", "Save changes"],
    ["/files", "Upload files"],
    ["/tokens", "New token"],
    ["/members", "Invite people"],
    ["/settings", "Save settings"],
  ] as const) {
    await page.goto(`${base}${path}`);
    await expect(page.getByText(ready).first()).toBeVisible();
    await scan(path || "overview");
  }
  await page.goto(`${base}/collections/books`);
  await page.getByRole("button", { name: "Edit dune" }).click();
  await expect(page.getByRole("dialog", { name: "Document dune" })).toBeVisible();
  await scan("document panel");
});

test("projects: your role in the list, transfer, delete by typing the id; usage charts with limits; the API log with filters", async ({ page }) => {
  test.setTimeout(120_000);
  const email = uniqueEmail("v2usage");
  const projectId = `v2u-${Date.now().toString(36)}`;
  const session = await signUpViaApi(email, "usage password v2");
  await createProjectViaApi(session, projectId, "Metered");
  await createProjectViaApi(session, `${projectId}-x`, "Doomed");
  const settings = (await api(`/api/user/projects/${projectId}/`, { session })).body.settings;
  const patched = await api(`/api/user/projects/${projectId}/`, { session, method: "PATCH", json: { settings: { ...settings, debug: true, data_size_limit: 5_000_000 } } });
  expect(patched.status).toBe(200);
  for (let i = 0; i < 3; i++) await api("/api/collections/", { session, project: projectId });
  expect((await api("/api/collections/nope/", { session, project: projectId })).status).toBe(404);
  await signIn(page, email, "usage password v2");

  await test.step("the list shows your role", async () => {
    await expect(page.getByRole("link", { name: /Metered/ })).toContainText("Your role: owner");
  });

  await test.step("usage: three charts, the data limit drawn", async () => {
    await page.goto(`/projects/${projectId}/usage`);
    await expect(page.getByRole("img", { name: "Requests per hour" }).locator("svg").first()).toBeVisible();
    await expect(page.getByRole("img", { name: "Bytes in and out per hour" }).locator("svg").first()).toBeVisible();
    await expect(page.getByRole("img", { name: "Data and files size" })).toContainText("Data limit 4.77 MB");
    await expect(page).toHaveTitle("Usage & logs · Metered · Arca");
  });

  await test.step("the API log: filter by status, method and path; request and response side by side", async () => {
    await expect(async () => {
      await page.reload();
      await expect(page.getByTestId("debug-entry").first()).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 20_000 });
    await page.getByLabel("Status").selectOption("4");
    await expect(page.getByTestId("debug-entry")).toHaveCount(1);
    await expect(page.getByTestId("debug-entry")).toContainText("/api/collections/nope/");
    await page.getByLabel("Status").selectOption("");
    await page.getByLabel("Method").selectOption("GET");
    await page.getByLabel("Path contains").fill("collections/nope");
    await expect(page.getByTestId("debug-entry")).toHaveCount(1);
    await page.getByTestId("debug-entry").getByRole("button").click();
    const detail = page.getByTestId("debug-detail");
    await expect(detail.getByRole("region", { name: "Request" })).toBeVisible();
    await expect(detail.getByRole("region", { name: "Response" })).toContainText("Collection not found.");
  });

  await test.step("transfer ownership to a member", async () => {
    const heir = uniqueEmail("v2heir");
    await signUpViaApi(heir, "heir password v2");
    expect((await api("/api/collections/_users/documents/", { session, project: projectId, json: { _id: heir, role: "member" } })).status).toBe(201);
    await page.goto(`/projects/${projectId}/settings`);
    await page.getByLabel("New owner").selectOption(heir);
    await page.getByRole("button", { name: "Transfer", exact: true }).click();
    await page.getByRole("dialog", { name: `Make ${heir} the owner?` }).getByRole("button", { name: "Transfer ownership" }).click();
    await expect(page.getByRole("button", { name: "Delete project" })).toHaveCount(0);
    const members = (await api("/api/collections/_users/documents/", { session, project: projectId })).body.items;
    expect(members.find((m: { _id: string }) => m._id === heir).role).toBe("owner");
    expect(members.find((m: { _id: string }) => m._id === email).role).toBe("admin");
  });

  await test.step("delete a project by typing its id", async () => {
    await page.goto(`/projects/${projectId}-x/settings`);
    await page.getByRole("button", { name: "Delete project" }).click();
    const dialog = page.getByRole("dialog", { name: `Delete the project ${projectId}-x?` });
    await expect(dialog.getByRole("button", { name: "Delete project" })).toBeDisabled();
    // Enter in the box confirms once the id matches (not before).
    await dialog.getByLabel(`Type ${projectId}-x to confirm`).fill(`${projectId}`);
    await dialog.getByLabel(`Type ${projectId}-x to confirm`).press("Enter");
    await expect(dialog).toBeVisible();
    await dialog.getByLabel(`Type ${projectId}-x to confirm`).fill(`${projectId}-x`);
    await dialog.getByLabel(`Type ${projectId}-x to confirm`).press("Enter");
    await expect(page).toHaveURL(/\/projects$/);
    expect((await api(`/api/user/projects/${projectId}-x/`, { session })).status).toBe(404);
  });
});

test("files: search by name, filter by type, grid with thumbnails, link to the document, copy the content link", async ({ page, context }) => {
  const email = uniqueEmail("v2files");
  const projectId = `v2fi-${Date.now().toString(36)}`;
  const session = await signUpViaApi(email, "files password v2");
  await createProjectViaApi(session, projectId);
  const upload = async (path: string, method: string, name: string, type: string, bytes: Buffer) => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(bytes)], { type }), name);
    const response = await fetch(`${BASE_URL}${path}`, { method, body: form, headers: { authorization: `SessionId ${session}`, "x-project": projectId } });
    expect(response.status, await response.clone().text()).toBeLessThan(300);
  };
  await upload("/api/collections/_files/documents/", "POST", "pixel.png", "image/png", PNG);
  await upload("/api/collections/_files/documents/", "POST", "notes.txt", "text/plain", Buffer.from("plain words\n"));
  expect((await api("/api/collections/albums/documents/", { session, project: projectId, json: { _id: "a1", title: "First" } })).status).toBe(201);
  await upload("/api/collections/albums/documents/a1/cover/", "PUT", "cover.png", "image/png", PNG);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signIn(page, email, "files password v2");
  await page.goto(`/projects/${projectId}/files`);
  const list = page.getByRole("list", { name: "Files" });
  await expect(list.getByRole("listitem")).toHaveCount(3);

  await page.getByLabel("Search by name").fill("PIX");
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(list).toContainText("pixel.png");
  await page.getByLabel("Search by name").fill("");
  await page.getByRole("combobox", { name: "Type", exact: true }).selectOption("text/");
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(list).toContainText("notes.txt");
  await page.getByRole("combobox", { name: "Type", exact: true }).selectOption("image/");
  await expect(list.getByRole("listitem")).toHaveCount(2);

  await page.getByRole("button", { name: "Grid", exact: true }).click();
  await expect(list.locator("img").first()).toBeVisible();
  await page.getByRole("button", { name: "List", exact: true }).click();

  await list.getByRole("button", { name: "Copy content link of cover.png" }).click();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toMatch(new RegExp(`^http://${projectId}\\.localhost:\\d+/api/collections/_files/documents/[^/]+/content/$`));

  await list.getByRole("link", { name: "Document albums/a1" }).click();
  await expect(page).toHaveURL(/\/collections\/albums\?filter=/);
  await expect(page.getByTestId("documents-total")).toHaveText("1 document · page 1 of 1");
});

/** A GET with node:http, which (unlike fetch) does not decode the body: the encoding is seen as sent. */
async function rawGet(path: string): Promise<{ encoding: string | undefined; body: Buffer }> {
  const http = await import("node:http");
  return new Promise((resolve, reject) => {
    const request = http.get(`${BASE_URL}${path}`, { headers: { "accept-encoding": "gzip, deflate, br" } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ encoding: response.headers["content-encoding"], body: Buffer.concat(chunks) }));
      response.on("error", reject);
    });
    request.on("error", reject);
  });
}
