import nodemailer from "nodemailer";
import { afterEach, describe, expect, it } from "vitest";
import { startSmtpListener, type SmtpListener } from "./smtp-listener";

let listener: SmtpListener | undefined;

afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

async function send(url: string, subject: string, to = "reader@example.test") {
  const transporter = nodemailer.createTransport(url);
  await transporter.sendMail({
    from: "Sender <sender@example.test>",
    to,
    bcc: "hidden@example.test",
    subject,
    text: `text of ${subject}`,
    html: `<p>html of ${subject}</p>`,
  });
  transporter.close();
}

describe("startSmtpListener", () => {
  it("parses what it receives and hands out mails received before the wait", async () => {
    listener = await startSmtpListener();
    expect(listener.url).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
    await send(listener.url, "First");

    const mail = await listener.waitForMail((m) => m.subject === "First");
    expect(mail).toMatchObject({
      from: "sender@example.test",
      to: ["reader@example.test", "hidden@example.test"],
      subject: "First",
    });
    // The SMTP DATA terminator leaves a line break after each body; the content is unchanged.
    expect(mail.text.trimEnd()).toBe("text of First");
    expect(mail.html.trimEnd()).toBe("<p>html of First</p>");
    expect(listener.messages).toHaveLength(1);
  });

  it("resolves a pending wait as soon as a matching mail arrives", async () => {
    listener = await startSmtpListener();
    const waiting = listener.waitForMail((m) => m.subject === "Second", 5_000);
    await send(listener.url, "First");
    await send(listener.url, "Second");
    await expect(waiting).resolves.toMatchObject({ subject: "Second" });
  });

  it("accepts a login without TLS", async () => {
    listener = await startSmtpListener();
    await send(listener.url.replace("smtp://", "smtp://user:secret@"), "With auth");
    await expect(listener.waitForMail((m) => m.subject === "With auth")).resolves.toBeDefined();
  });

  it("rejects on timeout naming the subjects received so far", async () => {
    listener = await startSmtpListener();
    await expect(listener.waitForMail(() => false, 50)).rejects.toThrow(/no mail received so far/);
    await send(listener.url, "Unrelated");
    await expect(listener.waitForMail((m) => m.subject === "Wanted", 50)).rejects.toThrow(
      'No matching mail within 50 ms; received so far: "Unrelated"',
    );
  });
});
