import PostalMime from "postal-mime";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  /** The address in the From header, without the display name. */
  from: string;
  /** The envelope recipients (RCPT TO), which is who actually got the mail, Bcc included. */
  to: string[];
  subject: string;
  text: string;
  html: string;
}

export interface SmtpListener {
  /** `smtp://127.0.0.1:<port>`, ready for `SMTP_URL`. */
  url: string;
  /** Every mail received so far, in arrival order. */
  messages: ReceivedMail[];
  waitForMail(predicate: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

interface Waiter {
  predicate: (mail: ReceivedMail) => boolean;
  resolve: (mail: ReceivedMail) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * A real SMTP server on a random loopback port that keeps what it receives, so tests exercise
 * the same nodemailer path production does instead of a mocked transport.
 */
export async function startSmtpListener(): Promise<SmtpListener> {
  const messages: ReceivedMail[] = [];
  const waiters = new Set<Waiter>();

  const settle = (mail: ReceivedMail) => {
    for (const waiter of waiters) {
      if (!waiter.predicate(mail)) continue;
      waiters.delete(waiter);
      clearTimeout(waiter.timer);
      waiter.resolve(mail);
    }
  };

  const server = new SMTPServer({
    authOptional: true,
    // Senders may still log in (smtp://user:pass@...), which needs AUTH without TLS.
    allowInsecureAuth: true,
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
    disabledCommands: ["STARTTLS"],
    disableReverseLookup: true,
    logger: false,
    // A sender that keeps its connection open must not hold up close() for the default 30 s.
    closeTimeout: 500,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("error", callback);
      stream.on("end", () => {
        PostalMime.parse(Buffer.concat(chunks)).then(
          (email) => {
            const from = email.from && "address" in email.from ? (email.from.address ?? "") : "";
            const mail: ReceivedMail = {
              from,
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
              subject: email.subject ?? "",
              text: email.text ?? "",
              html: email.html ?? "",
            };
            messages.push(mail);
            settle(mail);
            callback();
          },
          (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
        );
      });
    },
  });

  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      const address = server.server.address();
      if (address && typeof address === "object") resolve(address.port);
      else reject(new Error("SMTP listener has no port"));
    });
  });

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitForMail(predicate, timeoutMs = 5_000) {
      const seen = messages.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise<ReceivedMail>((resolve, reject) => {
        const waiter: Waiter = {
          predicate,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiters.delete(waiter);
            reject(new Error(`No matching mail within ${timeoutMs} ms; ${receivedSoFar(messages)}`));
          }, timeoutMs),
        };
        waiters.add(waiter);
      });
    },
    close() {
      for (const waiter of waiters) {
        clearTimeout(waiter.timer);
        waiter.reject(new Error(`SMTP listener closed before a matching mail; ${receivedSoFar(messages)}`));
      }
      waiters.clear();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function receivedSoFar(messages: ReceivedMail[]): string {
  if (messages.length === 0) return "no mail received so far";
  return `received so far: ${messages.map((m) => JSON.stringify(m.subject)).join(", ")}`;
}
