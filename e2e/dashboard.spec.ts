import { expect, test } from "@playwright/test";
import { api, BASE_URL, uniqueEmail } from "./support/api";
import { confirmationCode, waitForMail } from "./support/mail";
import { snap } from "./support/screenshots";

/**
 * One owner's journey through the dashboard: sign up with the mailed code, sign out and in,
 * create a project, change its settings, create a token, use it from outside, sign out.
 */
test("sign up, projects, settings, tokens, sign out", async ({ page, context }) => {
  const email = uniqueEmail("owner");
  const password = "correct horse battery";
  // Unique per run, so the spec may repeat against one server (--repeat-each).
  const suffix = Date.now().toString(36);
  const projectId = `shop-${suffix}`;
  const projectName = `Shop ${suffix}`;
  const renamed = `Shop ${suffix} renamed`;

  await test.step("a protected page sends a visitor to sign-in", async () => {
    await page.goto("/projects");
    await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fprojects$/);
    await expect(page.getByRole("heading", { name: "Sign in to Arca" })).toBeVisible();
    await snap(page, "signin", { phone: true });
  });

  await test.step("sign up with the e-mailed code", async () => {
    await page.goto("/signin");
    await page.getByRole("link", { name: "Create one" }).click();
    await expect(page).toHaveURL(/\/signup$/);
    await snap(page, "signup", { phone: true });
    const since = Date.now();
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByLabel("Confirmation code")).toBeVisible();
    await expect(page.getByText(`We sent a 12-character code to ${email}`)).toBeVisible();
    await snap(page, "signup-code");

    // A wrong code is refused inline.
    await page.getByLabel("Confirmation code").fill("0000-0000-0000");
    await page.getByRole("button", { name: "Confirm and sign in" }).click();
    await expect(page.getByRole("main").getByRole("alert")).toContainText("Confirmation code not found.");

    const code = confirmationCode(await waitForMail(email, { since }));
    await page.getByLabel("Confirmation code").fill(code);
    await page.getByRole("button", { name: "Confirm and sign in" }).click();
    await expect(page).toHaveURL(/\/projects$/);
    await expect(page.getByTestId("project-quota")).toHaveText("You own 0 of 5 projects.");
    await expect(page.getByText("No projects yet.")).toBeVisible();
    await expect(page.getByRole("banner")).toContainText(email);
  });

  await test.step("sign out, wrong password, sign in", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/signin$/);
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("main").getByRole("alert")).toHaveText("Wrong credentials provided.");
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/projects$/);
  });

  await test.step("create a project", async () => {
    await page.getByLabel("Name", { exact: true }).fill(projectName);
    await expect(page.getByLabel("Project ID")).toHaveValue(projectId);
    await page.getByRole("button", { name: "Create project" }).click();
    await expect(page).toHaveURL(new RegExp(`/projects/${projectId}$`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(projectName);
    await expect(page.getByTestId("status-data-size")).toHaveText("0 B");
    await expect(page.getByTestId("status-files-size")).toHaveText("0 B");
    // Notifications are a link away (their list, _notification).
    await expect(page.getByTestId("notifications-link")).toContainText("No notifications");
    await snap(page, "project-overview", { phone: true });
    await page.getByRole("link", { name: "No notifications" }).click();
    await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/collections/_notification$`));
    await page.goBack();

    await page.getByRole("link", { name: "Projects", exact: true }).click();
    await expect(page.getByTestId("project-quota")).toHaveText("You own 1 of 5 projects.");
    await expect(page.getByRole("link", { name: new RegExp(projectName) })).toBeVisible();
    await expect(page.getByText("4 of 5 left.", { exact: false })).toBeVisible();
    await snap(page, "projects", { phone: true });
  });

  await test.step("change settings", async () => {
    await page.goto(`/projects/${projectId}/settings`);
    await page.getByLabel("Name", { exact: true }).fill(renamed);
    await page.getByLabel("Files size limit", { exact: true }).fill("10");
    await page.getByLabel("Orphan files TTL").fill("168h");
    await expect(page.getByLabel("Change feed replay")).toHaveValue("24h");
    await expect(page.getByLabel("Hooks history kept")).toHaveValue("720h");
    await page.getByLabel("Change feed replay").fill("48h");
    await page.getByLabel("Hooks history kept").fill("");
    await page.getByLabel("Debug log").check();
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByText("Settings saved.")).toBeVisible();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(renamed);

    // A bad duration is caught before it is sent.
    await page.getByLabel("Orphan files TTL").fill("a week");
    await expect(page.getByText('Use a duration like "168h"')).toBeVisible();
    await expect(page.getByRole("button", { name: "Save settings" })).toBeDisabled();

    await page.reload();
    await expect(page.getByLabel("Name", { exact: true })).toHaveValue(renamed);
    await expect(page.getByLabel("Files size limit", { exact: true })).toHaveValue("10");
    await expect(page.getByLabel("Debug log")).toBeChecked();
    const stored = await page.request.get(`/api/user/projects/${projectId}/`);
    expect(stored.status()).toBe(200);
    const project = await stored.json();
    expect(project.name).toBe(renamed);
    expect(project.settings).toMatchObject({ debug: true, files_size_limit: 10 * 1024 * 1024, orphan_files_ttl: "168h", events_ttl: "48h", hooks_history_ttl: "" });
    await expect(page.getByTestId("settings-data-size")).toHaveText("0 B");
    await snap(page, "project-settings", { phone: true });

    // Limits set through the API in plain bytes show exactly, and saving something else leaves them be.
    const projectUrl = `/api/user/projects/${projectId}/`;
    const origin = { origin: new URL(page.url()).origin };
    expect((await page.request.patch(projectUrl, { headers: origin, data: { settings: { files_size_limit: 1_500_000, data_size_limit: 524 } } })).status()).toBe(200);
    await page.reload();
    await expect(page.getByLabel("Data size limit", { exact: true })).toHaveValue("524");
    await expect(page.getByLabel("Data size limit unit")).toHaveValue("B");
    await expect(page.getByLabel("Files size limit", { exact: true })).toHaveValue("1500000");
    await page.getByLabel("Debug log").uncheck();
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByText("Settings saved.")).toBeVisible();
    const resaved = await (await page.request.get(projectUrl)).json();
    expect(resaved.settings).toMatchObject({ debug: false, files_size_limit: 1_500_000, data_size_limit: 524 });

    // A rename made elsewhere while the form is open is kept: only the fields changed in the form are sent.
    expect((await page.request.patch(projectUrl, { headers: origin, data: { name: "Renamed elsewhere" } })).status()).toBe(200);
    await page.getByLabel("Debug log").check();
    const sent = page.waitForRequest((r) => r.method() === "PATCH" && r.url().endsWith(projectUrl));
    await page.getByRole("button", { name: "Save settings" }).click();
    expect((await sent).postDataJSON()).toEqual({ settings: { debug: true } });
    await expect(page.getByText("Settings saved.")).toBeVisible();
    expect((await (await page.request.get(projectUrl)).json()).name).toBe("Renamed elsewhere");
    // The form now shows what was saved, the other change included.
    await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Renamed elsewhere");
    expect((await page.request.patch(projectUrl, { headers: origin, data: { name: renamed, settings: { files_size_limit: 10 * 1024 * 1024, data_size_limit: 0, debug: true } } })).status()).toBe(200);
  });

  await test.step("the active switch asks first", async () => {
    const toggle = page.getByRole("switch", { name: "Project active" });
    await expect(toggle).toHaveAttribute("aria-checked", "true");
    await toggle.click();
    const dialog = page.getByRole("dialog", { name: "Deactivate this project?" });
    await expect(dialog).toBeVisible();
    await snap(page, "project-deactivate-dialog");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    await expect(toggle).toHaveAttribute("aria-checked", "true");

    await toggle.click();
    await page.getByRole("dialog").getByRole("button", { name: "Deactivate" }).click();
    await expect(toggle).toHaveAttribute("aria-checked", "false");
    await expect(page.getByText("Inactive", { exact: true }).first()).toBeVisible();

    await toggle.click();
    await page.getByRole("dialog", { name: "Activate this project?" }).getByRole("button", { name: "Activate" }).click();
    await expect(toggle).toHaveAttribute("aria-checked", "true");
  });

  let secret = "";
  await test.step("create a token and copy its secret", async () => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: BASE_URL });
    await page.getByRole("navigation", { name: "Project sections" }).getByRole("link", { name: "Tokens" }).click();
    await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/tokens$`));
    await expect(page.getByText("No tokens yet.")).toBeVisible();
    await snap(page, "tokens-empty", { phone: true });

    await page.getByLabel("Name", { exact: true }).fill("website");
    await page.getByLabel("Add a collection by name").fill("articles");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await page.getByRole("checkbox", { name: "read articles" }).check();
    await page.getByRole("checkbox", { name: "write articles" }).check();
    await snap(page, "tokens-create", { phone: true });
    await page.getByRole("button", { name: "Create token" }).click();

    const panel = page.getByTestId("token-secret-panel");
    await expect(panel).toBeVisible();
    await snap(page, "tokens-secret", { phone: true });
    secret = await page.getByLabel("Secret").inputValue();
    expect(secret.length).toBeGreaterThanOrEqual(22);
    await panel.getByRole("button", { name: "Copy" }).click();
    await expect(panel.getByRole("button", { name: "Copied" })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await panel.getByRole("button", { name: "Done" }).click();
    await expect(panel).toBeHidden();
    await expect(page.getByRole("list", { name: "Tokens" })).toContainText("read: articles · write: articles");
  });

  await test.step("the token works from outside the browser", async () => {
    const info = await api("/api/collections/", { token: secret, project: projectId });
    expect(info.status).toBe(200);
    expect(Array.isArray(info.body.items)).toBe(true);
    const anonymous = await api("/api/collections/", { project: projectId });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: "Not authorized" });
  });

  await test.step("deactivate and delete the token", async () => {
    const list = page.getByRole("list", { name: "Tokens" });
    await list.getByRole("button", { name: "Deactivate token website" }).click();
    await page.getByRole("dialog", { name: "Deactivate this token?" }).getByRole("button", { name: "Deactivate token" }).click();
    await expect(list.getByRole("button", { name: "Activate token website", exact: true })).toBeVisible();
    expect((await api("/api/collections/", { token: secret, project: projectId })).status).not.toBe(200);
    await snap(page, "tokens-list");

    await list.getByRole("button", { name: "Delete token website" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this token?" });
    await dialog.getByRole("button", { name: "Delete token" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByText("No tokens yet.")).toBeVisible();
    expect((await api("/api/collections/", { token: secret, project: projectId })).status).toBe(401);
  });

  await test.step("sign out ends the API session and protects the pages", async () => {
    const cookie = (await context.cookies()).find((c) => c.name === "authjs.session-token");
    expect(cookie).toBeTruthy();
    const before = await fetch(`${BASE_URL}/api/user/`, { headers: { cookie: `${cookie!.name}=${cookie!.value}` } });
    expect(before.status).toBe(200);

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/signin$/);
    // The old cookie, replayed, no longer opens Arca's session: sign-out ended it server-side.
    const after = await fetch(`${BASE_URL}/api/user/`, { headers: { cookie: `${cookie!.name}=${cookie!.value}` } });
    expect(after.status).toBe(401);

    for (const path of ["/projects", `/projects/${projectId}/settings`, `/projects/${projectId}/tokens`]) {
      await page.goto(path);
      await expect(page).toHaveURL(`/signin?callbackUrl=${encodeURIComponent(path)}`);
    }
    await page.goto("/");
    await expect(page).toHaveURL(/\/signin$/);
  });
});
