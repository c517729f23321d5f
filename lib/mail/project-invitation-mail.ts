import {
  checkedLink,
  escapeHtml,
  htmlButton,
  htmlLayout,
  projectLabel,
  subjectLine,
  type MailContent,
} from "./mail-layout";

export interface ProjectInvitationInput {
  projectName: string;
  projectId: string;
  inviterEmail: string;
  /** Where the invitee signs up and accepts; absolute http(s) URL. */
  link: string;
  /** A Date, or its ISO string as stored in an outbox row. */
  expiresAt: Date | string;
}

/** Invites an address that has no Arca account yet to a project. */
export function projectInvitationMail(input: ProjectInvitationInput): MailContent {
  const project = projectLabel(input.projectName, input.projectId);
  const link = checkedLink(input.link);
  // Names are not unique across projects; the id is what the reader sees in the dashboard.
  const idSuffix = project === input.projectId ? "" : ` (${input.projectId})`;
  const htmlIdSuffix = idSuffix && ` <span style="color:#777">${escapeHtml(idSuffix.trim())}</span>`;
  const expires = formatExpiry(input.expiresAt);
  const subject = subjectLine(`You're invited to join "${project}" on Arca`);
  const text = `${input.inviterEmail} invited you to join the project "${project}"${idSuffix} on Arca.

Create your account and accept the invitation here:
${link}

This invitation expires on ${expires}.
`;
  const html = htmlLayout(
    subject,
    `<h1 style="font-size:20px;margin:0 0 16px">You're invited to ${escapeHtml(project)}</h1>
<p><strong>${escapeHtml(input.inviterEmail)}</strong> invited you to join the project <strong>${escapeHtml(project)}</strong>${htmlIdSuffix} on Arca.</p>
${htmlButton("Accept the invitation", link)}
<p style="font-size:13px;color:#555">This invitation expires on ${escapeHtml(expires)}.</p>`,
  );
  return { subject, text, html };
}

// The mail is read in the recipient's time zone, which the server does not know; UTC is explicit.
const expiryFormat = new Intl.DateTimeFormat("en-US", {
  dateStyle: "long",
  timeStyle: "short",
  timeZone: "UTC",
});

function formatExpiry(expiresAt: Date | string): string {
  const date = expiresAt instanceof Date ? expiresAt : new Date(expiresAt);
  if (Number.isNaN(date.getTime())) throw new Error(`Invalid invitation expiry: ${String(expiresAt)}`);
  return `${expiryFormat.format(date)} UTC`;
}
