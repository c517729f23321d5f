import { expect, test, type Page } from "@playwright/test";
import { api, createProjectViaApi, signUpViaApi, uniqueEmail } from "./support/api";
import { snap } from "./support/screenshots";

/**
 * Collections and documents through the dashboard: a collection with a schema and indexes, a
 * document added and edited, a filter (and its inline errors), sorting, full-text search, several
 * documents deleted in one request, the definition edited, the collection deleted.
 */
const SCHEMA = {
  type: "object",
  properties: {
    title: { type: "string", required: true, position: 1 },
    year: { type: "integer", position: 2 },
    summary: { type: "string", position: 3 },
    cover: { type: "file", position: 4 },
  },
};

async function fillJson(page: Page, label: string, value: unknown) {
  await page.getByLabel(label, { exact: true }).fill(typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

test("collections: schema, documents, filter, sort, search, bulk delete", async ({ page }) => {
  const email = uniqueEmail("books");
  const password = "books password";
  const projectId = `books-${Date.now().toString(36)}`;
  const session = await signUpViaApi(email, password);
  await createProjectViaApi(session, projectId, "Library");
  const base = `/projects/${projectId}`;

  await test.step("a protected page asks to sign in, then comes back to it", async () => {
    await page.goto(`${base}/collections`);
    await expect(page).toHaveURL(`/signin?callbackUrl=${encodeURIComponent(`${base}/collections`)}`);
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`${base}/collections`);
    await expect(page.getByText("No collections yet.")).toBeVisible();
    // System collections are listed apart.
    await expect(page.getByRole("table", { name: "System collections" })).toContainText("_files");
    await snap(page, "collections-empty", { phone: true });
  });

  await test.step("an open redirect is refused", async () => {
    await page.goto("/signin?callbackUrl=//evil.example/x");
    // Already signed in: the page forwards to the safe default, not to the other site.
    await expect(page).toHaveURL(/\/projects$/);
    await page.goto(`${base}/collections`);
  });

  await test.step("a collection that does not exist is one plain message", async () => {
    await page.goto(`${base}/collections/nosuch`);
    await expect(page.getByText("This collection does not exist (any more).")).toBeVisible();
    await expect(page.getByRole("button", { name: "New document" })).toHaveCount(0);
    await expect(page.getByText("Collection not found.")).toHaveCount(0);
    await page.getByRole("link", { name: "Back to the collections" }).click();
    await expect(page).toHaveURL(`${base}/collections`);
  });

  await test.step("the schema editor checks as you type", async () => {
    await page.getByRole("button", { name: "New collection" }).click();
    const form = page.getByRole("form", { name: "New collection" });
    await form.getByLabel("Collection ID").fill("_books");
    await expect(form.getByText("Names starting with _ are reserved")).toBeVisible();
    await form.getByLabel("Collection ID").fill("books");
    await fillJson(page, "Schema (JSON Schema)", '{\n  "type": "object",\n  "properties": {\n    "title": {"type": "string"},\n  }\n}');
    await expect(page.getByTestId("json-errors")).toContainText("Invalid JSON at line 5");
    await expect(form.getByRole("button", { name: "Create collection" })).toBeDisabled();
    await snap(page, "collection-schema-error", { phone: true });
    await fillJson(page, "Schema (JSON Schema)", { type: "array" });
    await expect(page.getByTestId("json-errors")).toContainText('"type" must be "object"');
    await fillJson(page, "Schema (JSON Schema)", { properties: { title: { type: "strng" } } });
    await expect(page.getByTestId("json-errors")).toContainText('title: unknown type "strng"');
    await fillJson(page, "Schema (JSON Schema)", SCHEMA);
    await expect(page.getByTestId("json-errors")).toHaveCount(0);
    await expect(page.getByTestId("schema-ok")).toHaveText("Valid schema: title, year, summary, cover.");
  });

  await test.step("indexes: simple unique and text", async () => {
    const form = page.getByRole("form", { name: "New collection" });
    await form.getByLabel("Name", { exact: true }).fill("Books");
    await form.getByRole("button", { name: "Add index" }).click();
    await form.getByLabel("Index 1 property").fill("title");
    await form.getByLabel("Unique").check();
    await form.getByRole("button", { name: "Add index" }).click();
    await form.getByLabel("Index 2 type").selectOption("text");
    await form.getByLabel("Index 2 property").fill("summary");
    await form.getByLabel("Index 2 language").selectOption("en");
    await form.getByRole("button", { name: "Add index" }).click();
    await form.getByLabel("Index 3 type").selectOption("text");
    await expect(form.getByText("A collection has at most one text index.")).toBeVisible();
    await form.getByRole("button", { name: "Remove index 3" }).click();
    await snap(page, "collection-create", { phone: true });
    await form.getByRole("button", { name: "Create collection" }).click();
    await expect(page).toHaveURL(`${base}/collections/books`);
    await expect(page.getByRole("heading", { level: 2, name: "Books" })).toBeVisible();
    const stored = await api(`/api/collections/books/`, { session, project: projectId });
    expect(stored.body.indexes).toEqual([
      { type: "simple", property: "title", unique: true },
      { type: "text", property: "summary", language: "en" },
    ]);
    expect(stored.body.schema).toEqual(SCHEMA);
  });

  await test.step("add a document in the JSON editor", async () => {
    await expect(page.getByText("No documents yet.")).toBeVisible();
    await page.getByRole("button", { name: "New document" }).click();
    // The form built from the schema comes first; the JSON is one toggle away.
    await page.getByRole("button", { name: "JSON", exact: true }).click();
    // The template holds required properties only, and none under a unique index (title): nothing
    // the user did not enter (year, summary start unset; no file).
    await expect(page.getByLabel("Document (JSON)")).toHaveText("{}");
    await fillJson(page, "Document (JSON)", { _id: "dune", title: 1965 });
    await page.getByRole("button", { name: "Create document" }).click();
    // The server's 422 names the property.
    await expect(page.getByTestId("json-errors")).toContainText("title: must be string");
    await snap(page, "document-create-422");
    await fillJson(page, "Document (JSON)", { _id: "dune", title: "Dune", year: 1956, summary: "A desert planet and its spice" });
    await page.getByRole("button", { name: "Create document" }).click();
    const row = page.getByTestId("document-dune");
    await expect(row).toContainText("Dune");
    await expect(row).toContainText("1956");
    await expect(page.getByTestId("collection-count")).toHaveText("1 document");
  });

  await test.step("edit it: only the change is sent", async () => {
    await page.getByRole("button", { name: "Edit dune" }).click();
    await page.getByRole("button", { name: "JSON", exact: true }).click();
    const editor = page.getByLabel("Document (JSON)");
    // The editor is CodeMirror: its lines are elements, so the text comes without line breaks.
    const text = (await editor.textContent()) ?? "";
    await editor.fill(text.replace('"year": 1956', '"year": 1965'));
    const patch = page.waitForRequest((r) => r.method() === "PATCH" && r.url().includes("/documents/dune/"));
    await page.getByRole("button", { name: "Save document" }).click();
    expect((await patch).postDataJSON()).toEqual({ year: 1965 });
    await expect(page.getByTestId("document-dune")).toContainText("1965");
    expect((await api(`/api/collections/books/documents/dune/`, { session, project: projectId })).body.year).toBe(1965);
  });

  await test.step("more documents, then filter", async () => {
    const more = [
      { _id: "solaris", title: "Solaris", year: 1961, summary: "An ocean that thinks" },
      { _id: "neuromancer", title: "Neuromancer", year: 1984, summary: "Cyberspace and a heist" },
      { _id: "hyperion", title: "Hyperion", year: 1989, summary: "Pilgrims tell their tales" },
    ];
    for (const document of more) expect((await api("/api/collections/books/documents/", { json: document, session, project: projectId })).status).toBe(201);
    await page.reload();
    await expect(page.getByTestId("documents-total")).toHaveText("4 documents · page 1 of 1");

    await fillJson(page, "Filter", "year > 1970");
    await expect(page.getByTestId("json-errors")).toContainText("Invalid JSON");
    await expect(page.getByRole("button", { name: "Apply filter" })).toBeDisabled();

    await fillJson(page, "Filter", { year: { $gt: 1970 } });
    await page.getByRole("button", { name: "Apply filter" }).click();
    await expect(page.getByTestId("documents-total")).toHaveText("2 documents · page 1 of 1");
    await expect(page.getByTestId("document-neuromancer")).toBeVisible();
    await expect(page.getByTestId("document-dune")).toHaveCount(0);

    // A bad operator: the API's 400 message, inline under the filter.
    await fillJson(page, "Filter", { year: { $later: 1970 } });
    await page.getByRole("button", { name: "Apply filter" }).click();
    await expect(page.getByTestId("json-errors")).toContainText("$later");
    await snap(page, "documents-filter-error", { phone: true });
    // Editing the filter: the answer about the old one goes; the new text's own error shows alone.
    await fillJson(page, "Filter", '{"year": ');
    await expect(page.getByTestId("json-errors")).toContainText("Invalid JSON");
    await expect(page.getByTestId("json-errors")).not.toContainText("$later");
    await page.getByRole("button", { name: "Clear" }).click();
    await expect(page.getByTestId("documents-total")).toHaveText("4 documents · page 1 of 1");
  });

  await test.step("sort by clicking a column", async () => {
    const table = page.getByRole("table", { name: "Documents of books" });
    await table.getByRole("button", { name: "year" }).click();
    await expect(table.getByRole("columnheader", { name: "year" })).toHaveAttribute("aria-sort", "ascending");
    await expect(table.locator("tbody tr").first()).toContainText("Solaris");
    await table.getByRole("button", { name: "year" }).click();
    await expect(table.getByRole("columnheader", { name: "year" })).toHaveAttribute("aria-sort", "descending");
    await expect(table.locator("tbody tr").first()).toContainText("Hyperion");
    await snap(page, "documents", { phone: true });
  });

  await test.step("full-text search through the text index", async () => {
    await page.getByLabel("Full-text search").fill("spice");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await expect(page.getByTestId("documents-total")).toHaveText("1 document · page 1 of 1");
    await expect(page.getByTestId("document-dune")).toBeVisible();
    await page.getByLabel("Full-text search").fill("");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await expect(page.getByTestId("documents-total")).toHaveText("4 documents · page 1 of 1");
  });

  await test.step("select two and delete them in one request", async () => {
    await page.getByRole("checkbox", { name: "Select solaris" }).check();
    await page.getByRole("checkbox", { name: "Select hyperion" }).check();
    await page.getByRole("button", { name: "Delete selected" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete 2 documents?" });
    const request = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith("/api/collections/books/documents/"));
    await dialog.getByRole("button", { name: "Delete documents" }).click();
    const sent = await request;
    expect(sent.headers()["x-action"]).toBe("Delete");
    expect(sent.postDataJSON()).toEqual({ payload: { filter: { _id: { $in: ["solaris", "hyperion"] } } } });
    await expect(page.getByText("Deleted 2 documents.")).toBeVisible();
    await expect(page.getByTestId("documents-total")).toHaveText("2 documents · page 1 of 1");

    await page.getByRole("button", { name: "Delete neuromancer" }).click();
    await page.getByRole("dialog", { name: "Delete this document?" }).getByRole("button", { name: "Delete document" }).click();
    await expect(page.getByTestId("documents-total")).toHaveText("1 document · page 1 of 1");
  });

  await test.step("edit the definition; the server's 422 shows in the editor", async () => {
    await page.getByRole("link", { name: "Schema & indexes" }).click();
    await expect(page).toHaveURL(`${base}/collections/books/definition`);
    const schema = page.getByLabel("Schema (JSON Schema)");
    await expect(schema).toContainText('"summary"');
    await fillJson(page, "Schema (JSON Schema)", { ...SCHEMA, properties: { ...SCHEMA.properties, pages: { type: "integer", minimum: "many" } } });
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByTestId("json-errors")).toContainText("Server:");
    await fillJson(page, "Schema (JSON Schema)", { ...SCHEMA, properties: { ...SCHEMA.properties, pages: { type: "integer", position: 5 } } });
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByText("Collection saved.")).toBeVisible();
    expect((await api(`/api/collections/books/`, { session, project: projectId })).body.schema.properties.pages).toEqual({ type: "integer", position: 5 });
    await snap(page, "collection-definition", { phone: true });
  });

  await test.step("the list shows documents_count", async () => {
    await page.getByRole("link", { name: "Collections", exact: true }).first().click();
    await expect(page.getByTestId("collection-books").getByTestId("documents-count")).toHaveText("1");
    await snap(page, "collections", { phone: true });
  });

  await test.step("delete the collection by typing its id", async () => {
    await page.goto(`${base}/collections/books/definition`);
    await page.getByRole("button", { name: "Delete collection" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete the collection books?" });
    await expect(dialog.getByRole("button", { name: "Delete collection" })).toBeDisabled();
    await dialog.getByLabel("Type books to confirm").fill("book");
    await expect(dialog.getByRole("button", { name: "Delete collection" })).toBeDisabled();
    await dialog.getByLabel("Type books to confirm").fill("books");
    await snap(page, "collection-delete-dialog");
    await dialog.getByRole("button", { name: "Delete collection" }).click();
    await expect(page).toHaveURL(`${base}/collections`);
    await expect(page.getByText("No collections yet.")).toBeVisible();
    expect((await api(`/api/collections/books/`, { session, project: projectId })).status).toBe(404);
  });
});
