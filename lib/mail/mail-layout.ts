/** What every mail renderer returns; the caller adds `to` and hands it to `sendMail`. */
export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

/**
 * Every interpolated value in a mail goes through this: project names and inviter addresses
 * are chosen by other users, and a mail client renders whatever markup reaches it.
 */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** Wraps already-escaped body markup in the shared frame; `title` is escaped here. */
export function htmlLayout(title: string, bodyHtml: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
</head>
<body style="margin:0;padding:24px;background:#f6f6f4;font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#1f1f1f;line-height:1.5">
<div style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:32px">
${bodyHtml}
<p style="margin-top:32px;font-size:12px;color:#777">Sent by Arca. If you did not expect this mail, you can ignore it.</p>
</div>
</body>
</html>
`;
}

/** A call-to-action button, with the URL also spelled out for clients that drop links. */
export function htmlButton(label: string, link: string): string {
  const href = escapeHtml(link);
  return `<p style="margin:24px 0"><a href="${href}" style="display:inline-block;background:#1f1f1f;color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:6px">${escapeHtml(label)}</a></p>
<p style="font-size:13px;color:#555">Or open this link: <a href="${href}" style="color:#555;word-break:break-all">${href}</a></p>`;
}

/**
 * Links in mails must be absolute http(s) URLs: a relative link is dead in a mail client, and
 * any other scheme (javascript:, data:) has no business behind a button.
 */
export function checkedLink(link: string): string {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw new Error(`Mail link is not an absolute URL: ${link}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new Error(`Mail link must be http(s): ${link}`);
  }
  return url.href;
}

/** Subjects are single header lines; a newline in a project name must not break them. */
export function subjectLine(value: string): string {
  return value.replace(/\s+/g, " ").trim();
}

/** How a project is named to a reader: its name, falling back to the id when it has none. */
export function projectLabel(projectName: string, projectId: string): string {
  const name = subjectLine(projectName);
  return name || projectId;
}
