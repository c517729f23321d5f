import http from "node:http";
import net from "node:net";
import { expect, test } from "@playwright/test";
import { api, BASE_URL, createProjectViaApi, createTokenViaApi, signUpViaApi, uniqueEmail } from "./support/api";
import { signIn } from "./support/sign-in";
import { snap } from "./support/screenshots";

/** Cross-tenant: another user sees none of a project owner's projects, in the pages or the API. */
test("a third user sees none of another user's projects", async ({ page }) => {
  const password = "another long password";
  const privateId = `alice-${Date.now().toString(36)}`;
  const owner = await signUpViaApi(uniqueEmail("alice"), password);
  await createProjectViaApi(owner, privateId, "Alice's private project");
  const ownerToken = await createTokenViaApi(owner, privateId, { allow: { all: true } });
  expect((await api("/api/collections/", { token: ownerToken, project: privateId })).status).toBe(200);

  const strangerEmail = uniqueEmail("mallory");
  await signUpViaApi(strangerEmail, password);
  await signIn(page, strangerEmail, password);

  await expect(page.getByTestId("project-quota")).toHaveText("You own 0 of 5 projects.");
  await expect(page.getByText("No projects yet.")).toBeVisible();
  await expect(page.getByText(privateId)).toHaveCount(0);

  for (const path of [`/projects/${privateId}`, `/projects/${privateId}/settings`, `/projects/${privateId}/tokens`]) {
    const response = await page.goto(path);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
  }
  await snap(page, "not-found");

  // The same through the API with the stranger's dashboard cookie.
  const list = await page.request.get("/api/user/projects/");
  expect(list.status()).toBe(200);
  expect((await list.json()).items).toEqual([]);
  // The API says "known but not allowed" (CONTRACT §1); the dashboard's pages above show Not found.
  expect((await page.request.get(`/api/user/projects/${privateId}/`)).status()).toBe(403);
  // A write carried by the cookie counts only from the dashboard's own origin (CSRF, CONTRACT §1).
  const origin = new URL(page.url()).origin;
  const patch = await page.request.patch(`/api/user/projects/${privateId}/`, { data: { name: "pwned" }, headers: { origin } });
  expect(patch.status()).toBe(403);
  const forged = await page.request.patch(`/api/user/projects/${privateId}/`, { data: { name: "pwned" } });
  expect(forged.status()).toBe(401);
  const tokens = await page.request.get("/api/collections/_tokens/documents/", { headers: { "x-project": privateId } });
  expect([401, 403, 404]).toContain(tokens.status());
  const info = await api("/api/info/", { session: owner, project: privateId });
  expect(info.body.name).toBe("Alice's private project");
});

/** The owner limit is shown before it bites, and the form gives way at the limit. */
test("the five-project limit is shown before it is reached", async ({ page }) => {
  const password = "yet another password";
  const email = uniqueEmail("limit");
  const session = await signUpViaApi(email, password);
  for (const n of [1, 2, 3]) await createProjectViaApi(session, `limit-${n}-${Date.now().toString(36)}`);
  await signIn(page, email, password);
  await expect(page.getByTestId("project-quota")).toHaveText("You own 3 of 5 projects.");
  await expect(page.getByText("2 of 5 left.", { exact: false })).toBeVisible();

  await page.getByLabel("Project ID").fill("Has Capitals");
  await expect(page.getByLabel("Project ID")).toHaveValue("has capitals");
  await expect(page.getByText("Use 2 to 63 lowercase letters", { exact: false })).toBeVisible();
  await expect(page.getByRole("button", { name: "Create project" })).toBeDisabled();

  // A taken id is said under Project ID, and goes once the id changes.
  const taken = `limit-1-taken-${Date.now().toString(36)}`;
  await createProjectViaApi(await signUpViaApi(uniqueEmail("other"), password), taken);
  await page.getByLabel("Project ID").fill(taken);
  await page.getByRole("button", { name: "Create project" }).click();
  const idField = page.getByRole("textbox", { name: /^Project ID/ });
  await expect(idField).toHaveAccessibleDescription(/Project already exists\./);
  await expect(page.getByRole("alert").filter({ hasText: "Project already exists." })).toHaveCount(0);
  await page.getByLabel("Project ID").fill(`${taken}-x`);
  await expect(page.getByText("Project already exists.")).toHaveCount(0);

  await createProjectViaApi(session, `limit-4-${Date.now().toString(36)}`);
  await page.reload();
  const fifth = `fifth ${Date.now().toString(36)}`;
  await page.getByLabel("Name", { exact: true }).fill(fifth);
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${fifth.replace(" ", "-")}$`));
  await page.getByRole("link", { name: "Projects", exact: true }).click();
  await expect(page.getByTestId("project-quota")).toHaveText("You own 5 of 5 projects.");
  await expect(page.getByRole("button", { name: "Create project" })).toHaveCount(0);
  await expect(page.getByText("the most an account can own", { exact: false })).toBeVisible();
  await snap(page, "projects-at-limit", { phone: true });
});

/** Project hosts serve that project's API and files; the dashboard answers only on the bare host. */
test("a project's host sends dashboard pages to the bare host, and still serves its API", async () => {
  const { hostname, port } = new URL(BASE_URL);
  const ask = (path: string, host: string) =>
    new Promise<{ status: number; location?: string }>((resolve, reject) => {
      http
        .get({ host: hostname, port, path, headers: { host } }, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, location: res.headers.location });
        })
        .on("error", reject);
    });
  for (const path of ["/signin", "/projects", "/", "/invite/abc?x=1"]) {
    expect(await ask(path, `demo.localhost:${port}`)).toEqual({ status: 308, location: `http://localhost:${port}${path}` });
    expect((await ask(path, `localhost:${port}`)).status).not.toBe(308);
  }
  // Its API is unchanged there (no such project: the API's own 404).
  expect((await ask("/api/collections/", `demo.localhost:${port}`)).status).toBe(404);
  // A request without Host gets a 400 from the dashboard's side too, never a crash of Next.
  const hostless = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write("GET /signin HTTP/1.1\r\nConnection: close\r\n\r\n"));
    let text = "";
    socket.on("data", (chunk) => (text += chunk));
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
  expect(hostless).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  // A malformed escape in a page's dynamic segment is the client's error, not a 500 of Next.
  for (const path of ["/invite/%ff", "/projects/%", "/projects/x/collections/%ed%a0%80/"]) expect((await ask(path, `localhost:${port}`)).status, path).toBe(400);
});
