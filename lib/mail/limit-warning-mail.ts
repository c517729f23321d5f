import { escapeHtml, htmlButton, htmlLayout, projectLabel, subjectLine, checkedLink, type MailContent } from "./mail-layout";

export interface LimitWarningInput {
  projectName: string;
  projectId: string;
  /** "Data" or "Files". */
  what: string;
  used: number;
  limit: number;
  /** The project's settings in the dashboard; absolute http(s) URL. */
  link: string;
}

/** Tells a project's owner it has used 80 % of a size limit (CONTRACT §2). */
export function limitWarningMail(input: LimitWarningInput): MailContent {
  const project = projectLabel(input.projectName, input.projectId);
  const link = checkedLink(input.link);
  const percent = Math.floor((100 * input.used) / input.limit);
  const subject = subjectLine(`"${project}" has used ${percent} % of its ${input.what.toLowerCase()} size limit`);
  const sizes = `${formatBytes(input.used)} of ${formatBytes(input.limit)}`;
  const text = `The project "${project}" on Arca has used ${sizes} (${percent} %) of its ${input.what.toLowerCase()} size limit.
Writes that would pass the limit are refused (402). Raise the limit or free space:
${link}
`;
  const html = htmlLayout(
    subject,
    `<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(input.what)} size limit at ${percent} %</h1>
<p>The project <strong>${escapeHtml(project)}</strong> has used ${escapeHtml(sizes)} of its ${escapeHtml(input.what.toLowerCase())} size limit.
Writes that would pass it are refused.</p>
${htmlButton("Open the project's settings", link)}`,
  );
  return { subject, text, html };
}

function formatBytes(n: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${n} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}
