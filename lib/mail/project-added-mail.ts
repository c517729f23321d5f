import {
  checkedLink,
  escapeHtml,
  htmlButton,
  htmlLayout,
  projectLabel,
  subjectLine,
  type MailContent,
} from "./mail-layout";

export interface ProjectAddedInput {
  projectName: string;
  projectId: string;
  inviterEmail: string;
  /** The project in the dashboard; absolute http(s) URL. */
  link: string;
}

/** Tells a registered user they now belong to a project (no acceptance step, so no expiry). */
export function projectAddedMail(input: ProjectAddedInput): MailContent {
  const project = projectLabel(input.projectName, input.projectId);
  const link = checkedLink(input.link);
  // Names are not unique across projects; the id is what the reader sees in the dashboard.
  const idSuffix = project === input.projectId ? "" : ` (${input.projectId})`;
  const htmlIdSuffix = idSuffix && ` <span style="color:#777">${escapeHtml(idSuffix.trim())}</span>`;
  const subject = subjectLine(`You were added to "${project}" on Arca`);
  const text = `${input.inviterEmail} added you to the project "${project}"${idSuffix} on Arca.

Open the project:
${link}
`;
  const html = htmlLayout(
    subject,
    `<h1 style="font-size:20px;margin:0 0 16px">You were added to ${escapeHtml(project)}</h1>
<p><strong>${escapeHtml(input.inviterEmail)}</strong> added you to the project <strong>${escapeHtml(project)}</strong>${htmlIdSuffix} on Arca.</p>
${htmlButton("Open the project", link)}`,
  );
  return { subject, text, html };
}
