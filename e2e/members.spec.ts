import { expect, test, type Browser } from "@playwright/test";
import { api, createProjectViaApi, signUpViaApi, uniqueEmail } from "./support/api";
import { waitForMail, type Mail } from "./support/mail";
import { signIn } from "./support/sign-in";
import { snap } from "./support/screenshots";

/**
 * Members: the owner invites a newcomer, resends, the newcomer accepts through `/invite/<token>`
 * and lands in the project signed in; roles change; a third user sees none of it.
 */
function invitePath(mail: Mail): string {
  const path = /\/invite\/[A-Za-z0-9_-]+/.exec(mail.text || mail.html)?.[0];
  if (!path) throw new Error(`No invitation link in "${mail.subject}": ${mail.text.slice(0, 300)}`);
  return path;
}

async function newPage(browser: Browser) {
  const context = await browser.newContext({ baseURL: "http://localhost:3100", viewport: { width: 1280, height: 800 } });
  return { context, page: await context.newPage() };
}

test("members: invite, resend, accept through the link, roles, a stranger sees nothing", async ({ page, browser }) => {
  const password = "members password";
  const ownerEmail = uniqueEmail("owner");
  const bobEmail = uniqueEmail("bob");
  const projectId = `team-${Date.now().toString(36)}`;
  const session = await signUpViaApi(ownerEmail, password);
  await createProjectViaApi(session, projectId, "Team project");
  await signIn(page, ownerEmail, password);
  await page.goto(`/projects/${projectId}/members`);

  await test.step("the owner's row is protected", async () => {
    const owner = page.getByTestId(`member-${ownerEmail}`);
    await expect(owner).toContainText("Owner");
    await expect(owner).toContainText("(you)");
    await expect(owner.getByRole("button")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Leave project" })).toHaveCount(0);
    await expect(page.getByText("No pending invitations.")).toBeVisible();
  });

  let firstLink = "";
  await test.step("invite a newcomer", async () => {
    await page.getByLabel("E-mail address").fill("not-an-address");
    await page.getByRole("button", { name: "Send invitation" }).click();
    // The API's 422 lands beside the field.
    await expect(page.getByLabel("E-mail address")).toHaveAttribute("aria-invalid", "true");
    await snap(page, "members-invite-error");

    const since = Date.now();
    await page.getByLabel("E-mail address").fill(bobEmail);
    await page.getByLabel("Role").selectOption("admin");
    await page.getByRole("button", { name: "Send invitation" }).click();
    await expect(page.getByText(`Invitation sent to ${bobEmail}.`)).toBeVisible();
    const pending = page.getByRole("list", { name: "Pending invitations" }).getByTestId(`member-${bobEmail}`);
    await expect(pending).toContainText("Invitation pending");
    await expect(pending.getByLabel(`Role of ${bobEmail}`)).toHaveValue("admin");
    firstLink = invitePath(await waitForMail(bobEmail, { since }));
    await snap(page, "members-pending", { phone: true });
  });

  let link = "";
  await test.step("resend: a new link, the old one stops working", async () => {
    const since = Date.now();
    await page.getByRole("button", { name: `Resend invitation to ${bobEmail}` }).click();
    await expect(page.getByText("A new link was sent; the previous one no longer works.")).toBeVisible();
    link = invitePath(await waitForMail(bobEmail, { since }));
    expect(link).not.toBe(firstLink);
    expect((await api(`/api${firstLink.replace("/invite/", "/invitations/")}/`)).status).toBe(404);
  });

  await test.step("the newcomer accepts on the invitation page and lands in the project", async () => {
    const bob = await newPage(browser);
    await bob.page.goto(firstLink);
    await expect(bob.page.getByRole("heading", { name: "Invitation not found" })).toBeVisible();

    await bob.page.goto(link);
    await expect(bob.page.getByRole("heading", { name: "Join Team project" })).toBeVisible();
    await expect(bob.page).toHaveTitle("Invitation · Arca");
    await expect(bob.page.getByText(`Invitation for ${bobEmail}`)).toBeVisible();
    await snap(bob.page, "invite", { phone: true });
    await bob.page.getByLabel("Choose a password").fill("short");
    await bob.page.getByRole("button", { name: "Create account and join" }).click();
    await expect(bob.page.getByRole("main").getByRole("alert")).toHaveText("Choose a password of at least 8 characters.");
    await bob.page.getByLabel("Your name (optional)").fill("Bob");
    await bob.page.getByLabel("Choose a password").fill("bob's long password");
    await bob.page.getByRole("button", { name: "Create account and join" }).click();
    await expect(bob.page).toHaveURL(`/projects/${projectId}`, { timeout: 20_000 });
    await expect(bob.page.getByRole("heading", { level: 1 })).toHaveText("Team project");
    await expect(bob.page.getByRole("banner")).toContainText(bobEmail);
    // The used link says so.
    await bob.page.goto(link);
    await expect(bob.page.getByText("This invitation has already been used.")).toBeVisible();
    // Signing out and in again works with the chosen password.
    await bob.page.goto(`/projects/${projectId}/members`);
    // An admin's own row offers no role, suspend or remove (a slip would lock them out): Leave is the way.
    const own = bob.page.getByRole("list", { name: "Members" }).getByTestId(`member-${bobEmail}`);
    await expect(own).toContainText("(you)");
    await expect(own).toContainText("admin");
    await expect(own.getByRole("button")).toHaveCount(0);
    await expect(own.getByLabel(`Role of ${bobEmail}`)).toHaveCount(0);
    await bob.page.getByRole("button", { name: "Sign out" }).click();
    await signIn(bob.page, bobEmail, "bob's long password");
    await expect(bob.page.getByRole("link", { name: /Team project/ })).toBeVisible();
    await bob.context.close();
  });

  await test.step("the owner sees the member, changes the role, removes another invitation", async () => {
    await page.reload();
    const bob = page.getByRole("list", { name: "Members" }).getByTestId(`member-${bobEmail}`);
    await expect(bob).not.toContainText("Invitation pending");
    await expect(bob).toContainText("Joined");
    await bob.getByLabel(`Role of ${bobEmail}`).selectOption("member");
    // A role change is confirmed first.
    const confirmRole = page.getByRole("dialog", { name: `Make ${bobEmail} a member?` });
    await confirmRole.getByRole("button", { name: "Change role" }).click();
    // The modal closes once the answer is back; until then the page behind it is inert (typing
    // into the invite form would be lost), even when the server has already saved the role.
    await expect(confirmRole).toBeHidden();
    await expect.poll(async () => (await api(`/api/collections/_users/documents/${bobEmail}/`, { session, project: projectId })).body.role).toBe("member");

    const carol = uniqueEmail("carol");
    await page.getByLabel("E-mail address").fill(carol);
    await page.getByRole("button", { name: "Send invitation" }).click();
    await page.getByRole("button", { name: `Withdraw invitation to ${carol}` }).click();
    await page.getByRole("dialog", { name: "Withdraw this invitation?" }).getByRole("button", { name: "Withdraw invitation" }).click();
    await expect(page.getByTestId(`member-${carol}`)).toHaveCount(0);
    await expect(page.getByText("No pending invitations.")).toBeVisible();
    await snap(page, "members", { phone: true });
  });

  await test.step("a member (not admin) sees the list without controls", async () => {
    const bob = await newPage(browser);
    await signIn(bob.page, bobEmail, "bob's long password");
    await bob.page.goto(`/projects/${projectId}/members`);
    await expect(bob.page.getByText("Only the project's owner or an admin can invite people.")).toBeVisible();
    await expect(bob.page.getByRole("button", { name: /^Remove / })).toHaveCount(0);
    await bob.page.goto(`/projects/${projectId}/collections`);
    await expect(bob.page.getByRole("button", { name: "New collection" })).toHaveCount(0);
    // A member may leave, from the dashboard too.
    await bob.page.goto(`/projects/${projectId}/members`);
    await bob.page.getByRole("button", { name: "Leave project" }).click();
    await bob.page.getByRole("dialog", { name: "Leave this project?" }).getByRole("button", { name: "Leave project" }).click();
    await expect(bob.page).toHaveURL(/\/projects$/);
    await expect(bob.page.getByText(projectId)).toHaveCount(0);
    expect((await api(`/api/collections/_users/documents/${bobEmail}/`, { session, project: projectId })).status).toBe(404);
    await bob.context.close();
  });

  await test.step("a third user sees none of it", async () => {
    const strangerEmail = uniqueEmail("mallory");
    await signUpViaApi(strangerEmail, password);
    const stranger = await newPage(browser);
    await signIn(stranger.page, strangerEmail, password);
    await expect(stranger.page.getByText("No projects yet.")).toBeVisible();
    for (const section of ["collections", "files", "members", "collections/books", "collections/books/definition"]) {
      const response = await stranger.page.goto(`/projects/${projectId}/${section}`);
      expect(response?.status(), section).toBe(404);
      await expect(stranger.page.getByRole("heading", { name: "Not found" })).toBeVisible();
    }
    for (const path of ["/api/collections/_users/documents/", "/api/collections/_files/documents/", "/api/collections/"]) {
      const answer = await stranger.page.request.get(path, { headers: { "x-project": projectId } });
      expect([401, 403, 404], path).toContain(answer.status());
    }
    await stranger.context.close();
  });
});
