import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import PostalMime from "postal-mime";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resetConfig } from "../config";
import { startSmtpListener, type SmtpListener } from "../testing/smtp-listener";
import { signupConfirmationMail } from "./signup-confirmation-mail";
import { sendMail } from "./send-mail";

const touchedEnv = ["SMTP_URL", "ARCA_DATA_DIR", "ARCA_BASE_DOMAIN", "ARCA_MAIL_FROM"] as const;
let savedEnv: Record<string, string | undefined>;
let listener: SmtpListener | undefined;
let dataDir: string | undefined;

beforeEach(() => {
  savedEnv = Object.fromEntries(touchedEnv.map((name) => [name, process.env[name]]));
  for (const name of touchedEnv) delete process.env[name];
});

afterEach(async () => {
  for (const name of touchedEnv) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
  resetConfig();
  vi.restoreAllMocks();
  await listener?.close();
  listener = undefined;
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

function useEnv(values: Partial<Record<(typeof touchedEnv)[number], string>>) {
  Object.assign(process.env, values);
  resetConfig();
}

const message = {
  to: "new-user@example.test",
  subject: "Confirm your email address for Arca",
  text: "Your code is 493817.\n",
  html: "<p>Your code is <b>493817</b>.</p>",
};

describe("sendMail over SMTP", () => {
  it("delivers to, subject, text and html with the default sender", async () => {
    listener = await startSmtpListener();
    useEnv({ SMTP_URL: listener.url, ARCA_BASE_DOMAIN: "arca.example.test" });

    await sendMail(message);

    const mail = await listener.waitForMail((m) => m.to.includes(message.to));
    expect(mail.from).toBe("no-reply@arca.example.test");
    expect(mail.to).toEqual([message.to]);
    expect(mail.subject).toBe(message.subject);
    expect(mail.text.trimEnd()).toBe(message.text.trimEnd());
    expect(mail.html.trimEnd()).toBe(message.html);
  });

  it("logs in with credentials from the URL and honours ARCA_MAIL_FROM", async () => {
    listener = await startSmtpListener();
    useEnv({
      SMTP_URL: listener.url.replace("smtp://", "smtp://mailer:p%40ss@") + "?tls=off",
      ARCA_MAIL_FROM: "Docs <docs@example.test>",
    });

    await sendMail({ ...message, to: "second@example.test" });

    const mail = await listener.waitForMail((m) => m.to.includes("second@example.test"));
    expect(mail.from).toBe("docs@example.test");
  });

  it("sends a rendered template end to end", async () => {
    listener = await startSmtpListener();
    useEnv({ SMTP_URL: listener.url });

    await sendMail({ to: "code@example.test", ...signupConfirmationMail({ code: "118822" }) });

    const mail = await listener.waitForMail((m) => m.to.includes("code@example.test"));
    expect(mail.text).toContain("118822");
    expect(mail.html).toContain("118822");
  });

  it("rejects with a clear error when the server is unreachable, without leaking the password", async () => {
    const port = await closedPort();
    useEnv({ SMTP_URL: `smtp://user:hunter2@127.0.0.1:${port}` });

    const sending = sendMail(message);
    await expect(sending).rejects.toThrow(
      new RegExp(`^Mail to new-user@example\\.test could not be sent via smtp://127\\.0\\.0\\.1:${port}: `),
    );
    await expect(sending).rejects.not.toThrow(/hunter2/);
  });

  it("rejects a URL that is not SMTP", async () => {
    useEnv({ SMTP_URL: "http://127.0.0.1:25" });
    await expect(sendMail(message)).rejects.toThrow(/smtp:\/\/ or smtps:\/\//);
  });
});

describe("sendMail without SMTP_URL", () => {
  it("writes a parseable .eml into the data dir and logs one line without the body", async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "arca-mail-"));
    useEnv({ ARCA_DATA_DIR: dataDir });
    const info = vi.spyOn(console, "info").mockImplementation(() => {});

    await sendMail(message);

    const outbox = path.join(dataDir, "mail");
    const files = await readdir(outbox);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d-]+Z-[0-9a-f]{8}\.eml$/);
    const file = path.join(outbox, files[0]!);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const raw = await readFile(file);
    expect(raw.includes("\r\n")).toBe(true);
    const parsed = await PostalMime.parse(raw);
    expect(parsed.to?.map((a) => ("address" in a ? a.address : undefined))).toEqual([message.to]);
    expect(parsed.from).toMatchObject({ name: "Arca", address: "no-reply@localhost" });
    expect(parsed.subject).toBe(message.subject);
    expect(parsed.text?.trimEnd()).toBe(message.text.trimEnd());
    expect(parsed.html?.trimEnd()).toBe(message.html);

    expect(info).toHaveBeenCalledTimes(1);
    const line = String(info.mock.calls[0]![0]);
    expect(line).toBe(`mail: wrote ${file} to=${message.to} subject=${message.subject}`);
    expect(line).not.toContain("493817");
  });

  it("keeps each mail in its own file", async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "arca-mail-"));
    useEnv({ ARCA_DATA_DIR: dataDir });
    vi.spyOn(console, "info").mockImplementation(() => {});

    await Promise.all([sendMail(message), sendMail(message), sendMail(message)]);

    const files = await readdir(path.join(dataDir, "mail"));
    expect(files.filter((f) => f.endsWith(".eml"))).toHaveLength(3);
    expect(files.filter((f) => f.startsWith("."))).toEqual([]);
  });

  it("rejects with a clear error when the outbox cannot be written", async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "arca-mail-"));
    // A file where the data dir should be makes the mail folder impossible to create.
    const blocked = path.join(dataDir, "not-a-dir");
    await writeFile(blocked, "");
    useEnv({ ARCA_DATA_DIR: blocked });

    await expect(sendMail(message)).rejects.toThrow(/^Mail to new-user@example\.test could not be written to /);
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address !== "object") throw new Error("no port");
  return address.port;
}
