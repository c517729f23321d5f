import fs from "node:fs";
import path from "node:path";

/** Mails the SMTP listener of e2e/global-setup.ts received, read from the folder it writes. */
export interface Mail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  receivedAt: number;
}

function mailDir(): string {
  const dir = process.env.E2E_MAIL_DIR;
  if (!dir) throw new Error("E2E_MAIL_DIR is not set: run the specs through playwright.config.ts's globalSetup");
  return dir;
}

export function readMails(): Mail[] {
  return fs
    .readdirSync(mailDir())
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => JSON.parse(fs.readFileSync(path.join(mailDir(), name), "utf8")) as Mail);
}

/** The newest mail to `to` (received after `since`, a Date.now() value), polling until it comes. */
export async function waitForMail(to: string, options: { since?: number; timeoutMs?: number; subject?: RegExp } = {}): Promise<Mail> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  const address = to.toLowerCase();
  for (;;) {
    const match = readMails()
      .filter((mail) => mail.to.some((rcpt) => rcpt.toLowerCase() === address))
      .filter((mail) => mail.receivedAt >= (options.since ?? 0))
      .filter((mail) => !options.subject || options.subject.test(mail.subject))
      .at(-1);
    if (match) return match;
    if (Date.now() > deadline) {
      const seen = readMails().map((mail) => `${mail.to.join(",")}: ${mail.subject}`);
      throw new Error(`No mail to ${to} within the timeout; received: ${seen.join(" | ") || "none"}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The sign-up confirmation code of a mail, as shown (`XXXX-XXXX-XXXX`). */
export function confirmationCode(mail: Mail): string {
  const code = /\b([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})\b/.exec(mail.text || mail.html)?.[1];
  if (!code) throw new Error(`No sign-up code in the mail "${mail.subject}": ${mail.text.slice(0, 300)}`);
  return code;
}
