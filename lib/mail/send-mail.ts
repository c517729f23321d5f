import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { isIP } from "node:net";
import path from "node:path";
import nodemailer, { type SendMailOptions, type Transporter } from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport";
import { config } from "../config";

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

type Deliver = (mail: SendMailOptions & OutgoingMail) => Promise<void>;

/**
 * Sends one mail through `SMTP_URL`, or, when it is unset, drops it into the outbox folder
 * `$ARCA_DATA_DIR/mail/` so a single-box install works without a mail server (CONTRACT §12).
 * Throws an Error naming the recipient and the cause; whether to retry is the caller's call.
 */
export async function sendMail(message: OutgoingMail): Promise<void> {
  const deliver = chooseDelivery();
  await deliver({
    from: process.env.ARCA_MAIL_FROM || `Arca <no-reply@${config().baseDomain}>`,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
  });
}

function chooseDelivery(): Deliver {
  const { smtpUrl, dataDir } = config();
  if (smtpUrl) return (mail) => sendViaSmtp(smtpUrl, mail);
  return (mail) => writeToOutbox(path.join(dataDir, "mail"), mail);
}

// Keyed by URL so a config reset in tests (or a changed SMTP_URL) gets a fresh transporter.
// Not pooled: Arca sends a handful of mails, and a pool's idle sockets would outlive the
// server they point at (and keep test SMTP listeners waiting on close).
const smtpTransporters = new Map<string, Transporter<SMTPTransport.SentMessageInfo>>();

async function sendViaSmtp(smtpUrl: string, mail: SendMailOptions & OutgoingMail): Promise<void> {
  let transporter = smtpTransporters.get(smtpUrl);
  if (!transporter) {
    transporter = nodemailer.createTransport(smtpOptions(smtpUrl));
    smtpTransporters.set(smtpUrl, transporter);
  }
  try {
    await transporter.sendMail(mail);
  } catch (error) {
    throw new Error(
      `Mail to ${mail.to} could not be sent via ${describeSmtpUrl(smtpUrl)}: ${messageOf(error)}`,
      { cause: error },
    );
  }
}

function smtpOptions(smtpUrl: string): SMTPTransport.Options {
  const url = parseSmtpUrl(smtpUrl);
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return {
    host,
    port: url.port ? Number(url.port) : undefined,
    secure: url.protocol === "smtps:",
    auth: url.username
      ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
      : undefined,
    // A local relay (Mailpit, a test listener) often advertises STARTTLS with a certificate
    // nobody can verify; upgrading there protects nothing and only makes sending fail.
    ignoreTLS: isLoopback(host) || url.searchParams.get("tls") === "off",
    // Nodemailer's defaults let a silent server hold a send for minutes; fail early instead.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 60_000,
  };
}

function parseSmtpUrl(smtpUrl: string): URL {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    throw new Error("SMTP_URL is not a valid URL (expected smtp://[user:pass@]host:port)");
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") {
    throw new Error(`SMTP_URL must start with smtp:// or smtps://, not ${url.protocol}//`);
  }
  if (!url.hostname) throw new Error("SMTP_URL has no host");
  return url;
}

function isLoopback(host: string): boolean {
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1" || host === "::ffff:127.0.0.1";
}

// Error messages end up in logs; never echo the credentials from the URL.
function describeSmtpUrl(smtpUrl: string): string {
  try {
    const url = new URL(smtpUrl);
    return `${url.protocol}//${url.host}`;
  } catch {
    return "SMTP_URL";
  }
}

const outboxRenderer = nodemailer.createTransport({
  streamTransport: true,
  buffer: true,
  newline: "windows",
});

async function writeToOutbox(dir: string, mail: SendMailOptions & OutgoingMail): Promise<void> {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const file = path.join(dir, `${stamp}-${randomBytes(4).toString("hex")}.eml`);
  // Written under a dot-name and renamed, so anything watching the folder never reads half a mail.
  const temp = path.join(dir, `.${path.basename(file)}.tmp`);
  try {
    const { message } = await outboxRenderer.sendMail(mail);
    // Mails carry sign-up codes and invitation links: keep them readable by this user only.
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(temp, message, { mode: 0o600, flag: "wx" });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw new Error(`Mail to ${mail.to} could not be written to ${dir}: ${messageOf(error)}`, {
      cause: error,
    });
  }
  // The body stays out of the log on purpose: it is the secret the recipient must prove they hold.
  console.info(`mail: wrote ${file} to=${oneLine(mail.to)} subject=${oneLine(mail.subject)}`);
}

function oneLine(value: string): string {
  return value.replace(/[\u0000-\u001f\u007f]+/g, " ");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
