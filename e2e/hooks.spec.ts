import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { api, createProjectViaApi, signUpViaApi, uniqueEmail } from "./support/api";
import { snap } from "./support/screenshots";

/**
 * Hooks through the dashboard: a hook to a real receiver on 127.0.0.1 (the app runs with
 * ARCA_HOOKS_ALLOW_PRIVATE=true, see global-setup.ts) created in the form (inline checks and the
 * API's 422 beside its fields), a document written, the delivery watched until it shows success,
 * its request and response opened, a test sent, a failing receiver retried, a redelivery, the
 * status filter, deactivate, edit and delete. The secret never appears in a URL.
 */
interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let receiver: http.Server;
let port = 0;
let answerStatus = 204;
const received: Received[] = [];

test.beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(answerStatus, { "content-type": "text/plain", "x-receiver": "e2e" }).end(answerStatus === 204 ? undefined : "receiver says no");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  port = (receiver.address() as AddressInfo).port;
});

test.afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

/** No serious or critical axe-core violation on the page as it is now. */
async function scan(page: Page, label: string) {
  const { default: AxeBuilder } = await import("@axe-core/playwright");
  const result = await new AxeBuilder({ page }).analyze();
  const serious = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(serious, label).toEqual([]);
}

const deliveries = (page: Page) => page.getByRole("list", { name: "Deliveries" }).getByRole("listitem").filter({ has: page.getByTestId("response-code") });

test("hooks: create in the UI, deliveries to a local receiver, test, redeliver, filter, edit, delete", async ({ page, context }) => {
  test.setTimeout(120_000);
  const email = uniqueEmail("hooks");
  const password = "hooks password";
  const projectId = `hooks-${Date.now().toString(36)}`;
  const session = await signUpViaApi(email, password);
  await createProjectViaApi(session, projectId, "Shop");
  const made = await api("/api/collections/", { json: { _id: "orders", name: "Orders" }, session, project: projectId });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const base = `/projects/${projectId}`;
  const url = `http://127.0.0.1:${port}/arca?source=e2e`;
  let secret = "";
  const urls: string[] = [];
  page.on("request", (request) => urls.push(request.url()));
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);

  await test.step("the Hooks tab, empty", async () => {
    await page.goto(`${base}/hooks`);
    await expect(page).toHaveURL(`/signin?callbackUrl=${encodeURIComponent(`${base}/hooks`)}`);
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`${base}/hooks`);
    await expect(page.getByRole("navigation", { name: "Project sections" }).getByRole("link", { name: "Hooks" })).toHaveAttribute("aria-current", "page");
    await expect(page.getByText("No hooks yet.")).toBeVisible();
    await snap(page, "hooks-empty", { phone: true });
  });

  await test.step("the form checks as you type and shows the API's 422 beside its fields", async () => {
    await page.getByRole("link", { name: "New hook" }).click();
    await expect(page).toHaveURL(`${base}/hooks/new`);
    const form = page.getByRole("form", { name: "New hook" });
    await form.getByRole("button", { name: "Create hook" }).click();
    await expect(form.getByText("Choose the collection whose changes are sent.")).toBeVisible();
    await expect(form.getByText("The receiver's URL is required.")).toBeVisible();

    await form.getByLabel("Name", { exact: true }).fill("Big orders");
    // `_files` has changes to deliver too; no other system collection is offered.
    await expect(form.getByLabel("Collection").locator('option[value="_files"]')).toHaveCount(1);
    await expect(form.getByLabel("Collection").locator('option[value="_tokens"]')).toHaveCount(0);
    await form.getByLabel("Collection").selectOption("orders");
    await form.getByLabel("URL").fill("ftp://example.com/");
    await expect(form.getByText("Must be an http:// or https:// URL.")).toBeVisible();
    await form.getByLabel("URL").fill(url);
    await expect(form.getByText("Must be an http:// or https:// URL.")).toHaveCount(0);
    await form.getByRole("checkbox", { name: /^deleted/ }).uncheck();

    await form.getByLabel("Conditions (JSON Schema)", { exact: true }).fill('{"properties": {"total": {"minimum": 100}},}');
    await expect(form.getByTestId("json-errors")).toContainText("Invalid JSON at line 1");
    // Valid JSON, but not a valid JSON Schema: only the server's ajv can tell.
    await form.getByLabel("Conditions (JSON Schema)", { exact: true }).fill('{"type": 12}');
    await expect(form.getByTestId("json-errors")).toHaveCount(0);

    await form.getByRole("button", { name: "Add header" }).click();
    await form.getByLabel("Header 1 name").fill("X-Env");
    await form.getByLabel("Header 1 value").fill("e2e");
    await form.getByRole("button", { name: "Add header" }).click();
    await form.getByLabel("Header 2 name").fill("X-Hook-ID");
    await form.getByLabel("Header 2 value").fill("spoofed");

    await form.getByLabel("Read timeout (s)").fill("100");
    await expect(form.getByText("Seconds from 0.01 to 90.")).toBeVisible();
    await form.getByLabel("Read timeout (s)").fill("3");
    await form.getByLabel("Retry strategy").selectOption("constant");

    await form.getByRole("button", { name: "Create hook" }).click();
    await expect(form.getByTestId("json-errors")).toContainText("Server: is not a valid JSON Schema");
    await expect(form.getByText("X-Hook-ID: is not a header a hook may set")).toBeVisible();
    await expect(page).toHaveURL(`${base}/hooks/new`);
    await snap(page, "hook-form-errors");
    await scan(page, "hook form with errors");

    await form.getByLabel("Conditions (JSON Schema)", { exact: true }).fill('{"properties": {"total": {"minimum": 100}}}');
    await form.getByRole("button", { name: "Remove header 2" }).click();
    // The server's errors were about what was sent: gone once their fields change.
    await expect(form.getByTestId("json-errors")).toHaveCount(0);
    await expect(form.getByText("is not a header a hook may set")).toHaveCount(0);
  });

  await test.step("a secret is generated, revealed, hidden and copied", async () => {
    const form = page.getByRole("form", { name: "New hook" });
    const field = form.getByLabel("Signing secret");
    await expect(field).toHaveAttribute("type", "password");
    await form.getByRole("button", { name: "Generate" }).click();
    await expect(field).toHaveAttribute("type", "text");
    secret = await field.inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(24);
    await form.getByRole("button", { name: "Hide" }).click();
    await expect(field).toHaveAttribute("type", "password");
    await form.getByRole("button", { name: "Copy" }).click();
    await expect(form.getByTestId("secret-status")).toHaveText("Secret copied to the clipboard.");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await expect(form.getByRole("switch", { name: /Active/ })).toBeChecked();
    await snap(page, "hook-form", { phone: true });
    await form.getByRole("button", { name: "Create hook" }).click();
    await expect(page).toHaveURL(new RegExp(`${base}/hooks/[^/]+$`));
    await expect(page.getByRole("heading", { name: "Big orders" })).toBeVisible();
    await expect(page.getByText("No deliveries yet.")).toBeVisible();
  });

  const hookId = decodeURIComponent(page.url().split("/").pop()!);
  let orderId = "";

  await test.step("a document is written: its delivery appears as success", async () => {
    // A small order first: the conditions keep it out, so the big one is the only delivery.
    const small = await api("/api/collections/orders/documents/", { json: { total: 5 }, session, project: projectId });
    expect(small.status).toBe(201);
    const big = await api("/api/collections/orders/documents/", { json: { total: 150, item: "piano" }, session, project: projectId });
    expect(big.status).toBe(201);
    orderId = big.body._id;

    const row = deliveries(page).filter({ hasText: orderId });
    await expect(row).toHaveAttribute("data-status", "success", { timeout: 20_000 });
    await expect(deliveries(page)).toHaveCount(1);
    await expect(row).toHaveAttribute("data-trigger", "created");
    await expect(row.getByTestId("response-code")).toHaveText("HTTP 204");
    await expect(row.getByTestId("duration")).toHaveText(/\d+(\.\d+)? (ms|s)$/);
    await expect(row).toContainText("attempt 1");

    const delivery = received.find((r) => r.body.includes(orderId))!;
    expect(delivery.method).toBe("POST");
    expect(delivery.path).toBe("/arca?source=e2e");
    expect(delivery.headers["x-env"]).toBe("e2e");
    expect(delivery.headers["x-hook-id"]).toBe(hookId);
    expect(delivery.headers["x-hook-trigger"]).toBe("created");
    expect(JSON.parse(delivery.body)).toEqual({ payload: { _id: orderId, total: 150, item: "piano" } });
    // X-Hook-Signature is keyed with the secret's text (docs/hooks.md), Standard Webhooks with its decoded bytes.
    expect(delivery.headers["x-hook-signature"]).toBe(`sha256=${createHmac("sha256", secret).update(delivery.body).digest("hex")}`);
    // The Standard Webhooks library takes the whsec_ secret as the form generated it.
    new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);
    expect(received.filter((r) => r.body.includes('"total":5'))).toHaveLength(0);

    await row.getByRole("button", { name: "Details" }).click();
    await expect(row.getByRole("button", { name: "Hide details" })).toHaveAttribute("aria-expanded", "true");
    const request = row.getByRole("region", { name: "Request" });
    await expect(request).toContainText(`POST ${url}`);
    await expect(request).toContainText("X-Env: e2e");
    await expect(request).toContainText("x-hook-signature: [redacted]");
    await expect(request).toContainText('"item": "piano"');
    await expect(row.getByRole("region", { name: "Response" })).toContainText("HTTP 204 in");
    await expect(row.getByRole("region", { name: "Response" })).toContainText("x-receiver: e2e");
    await snap(page, "hook-deliveries", { phone: true });
    await scan(page, "hook deliveries");
  });

  await test.step("Send test delivers a sample now", async () => {
    await page.getByRole("button", { name: "Send test" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Test delivery received" })).toBeVisible();
    expect(received.some((r) => r.headers["x-hook-trigger"] === "test")).toBe(true);
    await expect(deliveries(page).and(page.locator('[data-trigger="test"]'))).toHaveAttribute("data-status", "success");
  });

  await test.step("Redeliver sends the same operation again", async () => {
    const before = received.length;
    const row = deliveries(page).filter({ hasText: orderId });
    const operationId = received.find((r) => r.body.includes(orderId))!.headers["x-hook-operation-id"];
    await row.getByRole("button", { name: /^Redeliver/ }).click();
    await expect(row.getByRole("status")).toHaveText("Redelivered: success (HTTP 204).");
    expect(received.length).toBe(before + 1);
    expect(received[before].headers["x-hook-operation-id"]).toBe(operationId);
    expect(received[before].headers["x-hook-trigger"]).toBe("created");
  });

  await test.step("a failing receiver: retrying, the status filter, then success on a later attempt", async () => {
    answerStatus = 500;
    const failing = await api("/api/collections/orders/documents/", { json: { total: 300 }, session, project: projectId });
    const row = deliveries(page).filter({ hasText: failing.body._id });
    await expect(row).toHaveAttribute("data-status", "retrying", { timeout: 20_000 });
    await expect(row.getByTestId("response-code")).toHaveText("HTTP 500");
    await expect(row).toContainText("Receiver answered 500");

    const status = page.getByLabel("Status", { exact: true });
    await status.selectOption("retrying");
    await expect(deliveries(page)).toHaveCount(1);
    await expect(deliveries(page)).toContainText(failing.body._id);
    await status.selectOption("error");
    await expect(page.getByText("No error deliveries.")).toBeVisible();
    await status.selectOption("success");
    await expect(deliveries(page)).toHaveCount(2);
    await status.selectOption("");

    answerStatus = 204;
    // Constant strategy: the next attempt comes 2 s after the last failure.
    await expect(row).toHaveAttribute("data-status", "success", { timeout: 20_000 });
    await expect(row).toContainText(/attempt ([2-9]|10)(?!\d)/);
  });

  await test.step("a queued delivery is cancelled from the page (its record goes; no attempt follows)", async () => {
    answerStatus = 500;
    const stuck = await api("/api/collections/orders/documents/", { json: { total: 400 }, session, project: projectId });
    const row = deliveries(page).filter({ hasText: stuck.body._id });
    await expect(row).toHaveAttribute("data-status", "retrying", { timeout: 20_000 });
    const deliveryId = await row.getAttribute("data-testid").then((id) => id!.replace(/^delivery-/, ""));
    await row.getByRole("button", { name: /^Cancel / }).click();
    await page.getByRole("dialog", { name: "Cancel this delivery?" }).getByRole("button", { name: "Cancel delivery" }).click();
    await expect(row).toHaveCount(0);
    expect((await api(`/api/collections/_hooks_history/documents/${deliveryId}/`, { session, project: projectId })).status).toBe(404);
    answerStatus = 204;
  });

  await test.step("the list shows each hook's last delivery; deactivate, edit, delete", async () => {
    await page.getByRole("switch", { name: "Active" }).uncheck();
    await expect(page.getByRole("definition").filter({ hasText: "Inactive" })).toBeVisible();

    await page.getByRole("navigation", { name: "Hooks breadcrumb" }).getByRole("link", { name: "Hooks" }).click();
    const item = page.getByTestId(`hook-${hookId}`);
    await expect(item).toContainText("Big orders");
    await expect(item).toContainText("Inactive");
    await expect(item.getByTestId("last-delivery")).toContainText("success");
    await expect(item.getByTestId("last-delivery")).toContainText("204");
    await snap(page, "hooks-list", { phone: true });
    await scan(page, "hooks list");

    await item.getByRole("link", { name: "Big orders" }).click();
    await page.getByRole("link", { name: "Edit" }).click();
    const form = page.getByRole("form", { name: "Edit hook" });
    await expect(form.getByLabel("Collection")).toHaveValue("orders");
    await expect(form.getByRole("checkbox", { name: /^deleted/ })).not.toBeChecked();
    await expect(form.getByLabel("Header 1 name")).toHaveValue("X-Env");
    await expect(form.getByLabel("Retry strategy")).toHaveValue("constant");
    await expect(form.getByRole("switch", { name: /Active/ })).not.toBeChecked();
    await form.getByLabel("Name", { exact: true }).fill("Big orders, edited");
    await form.getByRole("switch", { name: /Active/ }).check();
    // Changed elsewhere while the form is open: kept, as an edit sends only what it changed.
    const elsewhere = await api(`/api/collections/_hooks/documents/${encodeURIComponent(hookId)}/`, { method: "PATCH", json: { timeout: { read: 5, connect: 1 } }, session, project: projectId });
    expect(elsewhere.status).toBe(200);
    const sent = page.waitForRequest((r) => r.method() === "PATCH" && r.url().includes("/_hooks/documents/"));
    await form.getByRole("button", { name: "Save hook" }).click();
    expect(Object.keys((await sent).postDataJSON()).sort()).toEqual(["is_active", "name"]);
    await expect(page).toHaveURL(`${base}/hooks/${encodeURIComponent(hookId)}`);
    await expect(page.getByRole("heading", { name: "Big orders, edited" })).toBeVisible();
    const stored = await api(`/api/collections/_hooks/documents/${encodeURIComponent(hookId)}/`, { session, project: projectId });
    expect(stored.body).toMatchObject({ name: "Big orders, edited", is_active: true, secret, headers: { "X-Env": "e2e" }, timeout: { read: 5, connect: 1 } });

    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await page.getByRole("dialog", { name: "Delete this hook?" }).getByRole("button", { name: "Delete hook" }).click();
    await expect(page).toHaveURL(`${base}/hooks`);
    await expect(page.getByText("No hooks yet.")).toBeVisible();
  });

  expect(urls.filter((u) => u.includes(secret) || u.includes(encodeURIComponent(secret)))).toEqual([]);
});

test("hooks: a member sees hooks and deliveries but cannot change, test or redeliver", async ({ browser }) => {
  const owner = await signUpViaApi(uniqueEmail("hook-owner"), "owner password");
  const memberEmail = uniqueEmail("hook-member");
  const memberPassword = "member password";
  const memberSession = await signUpViaApi(memberEmail, memberPassword);
  const projectId = `hookm-${Date.now().toString(36)}`;
  await createProjectViaApi(owner, projectId, "Members shop");
  const invited = await api("/api/collections/_users/documents/", { json: { _id: memberEmail, role: "member" }, session: owner, project: projectId });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  expect((await api("/api/collections/", { json: { _id: "orders" }, session: owner, project: projectId })).status).toBe(201);
  const hook = await api("/api/collections/_hooks/documents/", {
    json: { name: "Audit", collection: "orders", url: `http://127.0.0.1:${port}/audit`, secret: "whsec_c2VjcmV0IG9mIHRoZSBvd25lcg==" },
    session: owner,
    project: projectId,
  });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  await api("/api/collections/orders/documents/", { json: { total: 1 }, session: owner, project: projectId });

  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto("/signin");
    await page.getByLabel("E-mail").fill(memberEmail);
    await page.getByLabel("Password").fill(memberPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/projects$/);
    const base = `/projects/${projectId}/hooks`;
    await page.goto(base);
    const item = page.getByTestId(`hook-${hook.body._id}`);
    await expect(item).toContainText("Audit");
    await expect(item.getByTestId("last-delivery")).toContainText("success", { timeout: 20_000 });
    await expect(page.getByRole("link", { name: "New hook" })).toHaveCount(0);

    await item.getByRole("link", { name: "Audit" }).click();
    await expect(page.getByRole("heading", { name: "Audit" })).toBeVisible();
    await expect(deliveries(page)).toHaveCount(1);
    await expect(page.getByRole("button", { name: "Send test" })).toHaveCount(0);
    await expect(page.getByRole("link", { name: "Edit" })).toHaveCount(0);
    await expect(page.getByRole("switch")).toHaveCount(0);
    await expect(page.getByRole("button", { name: /^Redeliver/ })).toHaveCount(0);
    // A member learns that a secret exists, never the secret.
    await expect(page.getByRole("definition").filter({ hasText: /^yes$/ })).toBeVisible();
    expect((await api(`/api/collections/_hooks/documents/${hook.body._id}/`, { session: memberSession, project: projectId })).body.secret).toBe("********");
    await expect(page.getByText("whsec_")).toHaveCount(0);

    for (const path of [`${base}/new`, `${base}/${hook.body._id}/edit`]) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(404);
    }
  } finally {
    await context.close();
  }
});
