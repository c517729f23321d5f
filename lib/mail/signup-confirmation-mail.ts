import { escapeHtml, htmlLayout, type MailContent } from "./mail-layout";

/**
 * The sign-up confirmation mail. The code stays out of the subject: subjects are logged
 * (outbox mode) and shown in lock-screen previews, and the code is what proves ownership.
 * `code` comes grouped (`XXXX-XXXX-XXXX`, lib/auth/signup-code.ts) so it is easy to read and type.
 */
export function signupConfirmationMail(input: { code: string }): MailContent {
  const subject = "Confirm your email address for Arca";
  const text = `Welcome to Arca.

Your confirmation code is:

    ${input.code}

Enter it on the sign-up page to confirm your email address (the dashes are optional).
It works for 24 hours, and only until a few wrong tries.

If you did not sign up for Arca, you can ignore this mail.
`;
  const html = htmlLayout(
    subject,
    `<h1 style="font-size:20px;margin:0 0 16px">Welcome to Arca</h1>
<p>Your confirmation code is:</p>
<p style="font-size:28px;font-weight:600;letter-spacing:4px;font-family:ui-monospace,Menlo,Consolas,monospace;margin:16px 0">${escapeHtml(input.code)}</p>
<p>Enter it on the sign-up page to confirm your email address (the dashes are optional).
It works for 24 hours, and only until a few wrong tries.</p>`,
  );
  return { subject, text, html };
}
