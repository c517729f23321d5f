import { describe, expect, it } from "vitest";
import { escapeHtml } from "./mail-layout";
import { projectAddedMail, projectInvitationMail, signupConfirmationMail } from "./templates";

const hostile = {
  projectName: `<script>alert("x")</script> & Co's`,
  projectId: "acme-docs",
  inviterEmail: "<img src=x onerror=alert(1)>@example.test",
  link: `https://arca.example.test/invite?token=a"b<c>&x=1`,
};

describe("escapeHtml", () => {
  it("escapes the five markup characters", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
    );
  });
});

describe("signupConfirmationMail", () => {
  it("carries the code in the bodies but not in the subject, which gets logged", () => {
    const mail = signupConfirmationMail({ code: "493817" });
    expect(mail.subject).toBe("Confirm your email address for Arca");
    expect(mail.text).toContain("493817");
    expect(mail.html).toContain("493817");
    expect(mail.subject).not.toContain("493817");
  });

  it("escapes the code", () => {
    expect(signupConfirmationMail({ code: "<b>1</b>" }).html).toContain("&lt;b&gt;1&lt;/b&gt;");
  });
});

describe("projectInvitationMail", () => {
  const expiresAt = new Date("2031-03-04T05:06:00Z");

  it("names the project, the inviter, the link and the expiry", () => {
    const mail = projectInvitationMail({
      projectName: "Acme Docs",
      projectId: "acme-docs",
      inviterEmail: "owner@example.test",
      link: "https://arca.example.test/invite/abc",
      expiresAt,
    });
    expect(mail.subject).toBe(`You're invited to join "Acme Docs" on Arca`);
    expect(mail.text).toContain(`owner@example.test invited you to join the project "Acme Docs" (acme-docs)`);
    expect(mail.text).toContain("https://arca.example.test/invite/abc");
    expect(mail.text).toContain("March 4, 2031 at 5:06 AM UTC");
    expect(mail.html).toContain(`href="https://arca.example.test/invite/abc"`);
    expect(mail.html).toContain("March 4, 2031 at 5:06 AM UTC");
  });

  it("accepts the expiry as an ISO string, as read back from an outbox row", () => {
    const mail = projectInvitationMail({ ...hostile, projectName: "P", expiresAt: expiresAt.toISOString() });
    expect(mail.text).toContain("March 4, 2031 at 5:06 AM UTC");
    expect(() => projectInvitationMail({ ...hostile, expiresAt: "soon" })).toThrow(/expiry/);
  });

  it("escapes every interpolated value in the HTML", () => {
    const { html, text } = projectInvitationMail({ ...hostile, expiresAt });
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co&#39;s");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;@example.test");
    // The link is normalized by URL parsing (which percent-encodes quotes and angle brackets),
    // then escaped, so it cannot close the attribute.
    expect(html).toContain(`href="https://arca.example.test/invite?token=a%22b%3Cc%3E&amp;x=1"`);
    // Plain text is not markup: the name reads as typed.
    expect(text).toContain(`<script>alert("x")</script> & Co's`);
  });

  it("refuses links a mail client could not follow safely", () => {
    expect(() => projectInvitationMail({ ...hostile, link: "javascript:alert(1)", expiresAt })).toThrow(/http\(s\)/);
    expect(() => projectInvitationMail({ ...hostile, link: "/invite/abc", expiresAt })).toThrow(/absolute/);
  });
});

describe("projectAddedMail", () => {
  it("names the project in the subject and links to it", () => {
    const mail = projectAddedMail({
      projectName: "Acme Docs",
      projectId: "acme-docs",
      inviterEmail: "owner@example.test",
      link: "https://arca.example.test/projects/acme-docs",
    });
    expect(mail.subject).toBe(`You were added to "Acme Docs" on Arca`);
    expect(mail.text).toContain(`owner@example.test added you to the project "Acme Docs" (acme-docs)`);
    expect(mail.html).toContain(`href="https://arca.example.test/projects/acme-docs"`);
  });

  it("escapes every interpolated value in the HTML", () => {
    const { html, subject } = projectAddedMail(hostile);
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;script&gt;");
    expect(subject).toBe(`You were added to "<script>alert("x")</script> & Co's" on Arca`);
  });

  it("keeps the subject on one line and falls back to the id for a blank name", () => {
    expect(projectAddedMail({ ...hostile, projectName: "Evil\r\nBcc: x@y" }).subject).toBe(
      `You were added to "Evil Bcc: x@y" on Arca`,
    );
    const unnamed = projectAddedMail({ ...hostile, projectName: "  " });
    expect(unnamed.subject).toBe(`You were added to "acme-docs" on Arca`);
    expect(unnamed.text).not.toContain("(acme-docs)");
  });
});
