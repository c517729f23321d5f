import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { api, createProjectViaApi, signUpViaApi, uniqueEmail } from "./support/api";
import { signIn } from "./support/sign-in";

/**
 * Import and export of a collection's documents from the documents page (issue 14): a JSON Lines
 * file with a bad row gives the summary and the failed row; an export is a real download (a
 * navigation to the export URL with ?project=, authorized by the cookie) of the same documents.
 */
test("import a JSON Lines file with a bad row, then export it as JSON Lines and CSV downloads", async ({ page }) => {
  const email = uniqueEmail("transfer");
  const password = "transfer password";
  const projectId = `transfer-${Date.now().toString(36)}`;
  const session = await signUpViaApi(email, password);
  await createProjectViaApi(session, projectId, "Transfers");
  const schema = { type: "object", properties: { title: { type: "string", required: true, position: 1 }, year: { type: "integer", position: 2 } } };
  expect((await api("/api/collections/", { json: { _id: "books", schema }, session, project: projectId })).status).toBe(201);
  const { default: AxeBuilder } = await import("@axe-core/playwright");
  const scan = async (label: string) => {
    const result = await new AxeBuilder({ page }).analyze();
    const serious = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    expect(serious, label).toEqual([]);
  };
  await signIn(page, email, password);
  await page.goto(`/projects/${projectId}/collections/books`);

  await test.step("import: summary and the failed row", async () => {
    await page.getByRole("button", { name: "Import", exact: true }).click();
    const panel = page.getByRole("region", { name: "Import documents" });
    const file = ['{"_id":"b1","title":"Dune","year":1965}', '{"_id":"b2","title":"Solaris","year":"soon"}', '{"_id":"b3","title":"Ubik","year":1969}'].join("\n");
    await panel.getByLabel("File (JSON Lines or CSV)").setInputFiles({ name: "books.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(file) });
    await panel.getByRole("button", { name: "Import", exact: true }).click();
    await expect(panel.getByTestId("import-summary")).toContainText("Imported: 2 documents created, 0 updated, 1 row failed.");
    const failed = panel.getByRole("table", { name: "Rows that failed" });
    await expect(failed.getByRole("row")).toHaveCount(2);
    const row = failed.getByRole("row").nth(1);
    await expect(row.getByRole("cell").nth(0)).toHaveText("2");
    await expect(row.getByRole("cell").nth(1)).toHaveText("b2");
    await expect(row.getByRole("cell").nth(2)).toContainText("Validation error");
    await expect(row.getByRole("cell").nth(2)).toContainText("year");
    // The table and the count follow.
    await expect(page.getByTestId("collection-count")).toHaveText("2 documents");
    await expect(page.getByRole("cell", { name: "Ubik" })).toBeVisible();
    await scan("import report");
    await panel.getByRole("button", { name: "Close" }).click();
  });

  await test.step("export: a download streamed by the browser, the same documents", async () => {
    await page.getByRole("button", { name: "Export", exact: true }).click();
    const panel = page.getByRole("region", { name: "Export documents" });
    await scan("export panel");
    const [jsonl] = await Promise.all([page.waitForEvent("download"), panel.getByRole("link", { name: "Download JSON Lines" }).click()]);
    expect(jsonl.suggestedFilename()).toBe("books.jsonl");
    const text = fs.readFileSync((await jsonl.path())!, "utf8");
    expect(text).toBe('{"_id":"b1","year":1965,"title":"Dune"}\n{"_id":"b3","year":1969,"title":"Ubik"}\n');
    const [csv] = await Promise.all([page.waitForEvent("download"), panel.getByRole("link", { name: "Download CSV" }).click()]);
    expect(csv.suggestedFilename()).toBe("books.csv");
    expect(fs.readFileSync((await csv.path())!, "utf8")).toBe("_id,title,year\r\nb1,Dune,1965\r\nb3,Ubik,1969\r\n");
  });
});
