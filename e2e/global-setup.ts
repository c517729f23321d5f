import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FullConfig } from "@playwright/test";
import { startSmtpListener } from "../lib/testing/smtp-listener";
import { stopProcessTree } from "./support/processes";

/**
 * Starts what the specs run against: a real SMTP listener, then the app exactly as `npm start`
 * runs it (scripts/start.ts: embedded PostgreSQL, migrations, the custom server) with a fresh
 * data dir and its own ports. Mails are written as JSON files into a folder the specs poll
 * (the listener lives in this process, the specs in workers). Returns the teardown.
 */
export const APP_PORT = 3100;
export const PG_PORT = 54359;

export default async function globalSetup(_config: FullConfig) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "arca-e2e-"));
  // Run as root, PostgreSQL runs as the OS user `postgres` and must reach its data dir.
  fs.chmodSync(root, 0o755);
  const dataDir = path.join(root, "data");
  const mailDir = path.join(root, "mails");
  fs.mkdirSync(mailDir, { recursive: true });
  const artifacts = path.resolve("e2e/artifacts");
  fs.mkdirSync(artifacts, { recursive: true });

  const smtp = await startSmtpListener();
  let written = 0;
  const flushMails = () => {
    for (; written < smtp.messages.length; written++) {
      const file = path.join(mailDir, `${String(written).padStart(5, "0")}.json`);
      fs.writeFileSync(`${file}.tmp`, JSON.stringify({ ...smtp.messages[written], receivedAt: Date.now() }));
      fs.renameSync(`${file}.tmp`, file);
    }
  };
  const mailTimer = setInterval(flushMails, 50);

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(APP_PORT),
    ARCA_DATA_DIR: dataDir,
    ARCA_PG_PORT: String(PG_PORT),
    SMTP_URL: smtp.url,
    NEXT_TELEMETRY_DISABLED: "1",
    // The hooks spec delivers to a receiver on 127.0.0.1, which the SSRF guard refuses otherwise.
    ARCA_HOOKS_ALLOW_PRIVATE: "true",
    // Every spec signs up and probes from 127.0.0.1: per-IP guessing limits would add up across the
    // run (lib/api/tests/guessing-limits.test.ts tests them); per-address limits stay on.
    ARCA_RATE_LIMIT_SIGNUP_PER_IP: "0",
    ARCA_RATE_LIMIT_FAILURES_PER_IP: "0",
  };
  delete env.DATABASE_URL;
  delete env.ARCA_SECRET;
  const log = fs.openSync(path.join(artifacts, "server.log"), "w");
  const started = Date.now();
  const server = spawn("npx", ["tsx", "scripts/start.ts"], { env, stdio: ["ignore", log, log] });
  const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));

  try {
    await waitForServer(`http://localhost:${APP_PORT}/api/user/`, exited, 240_000);
  } catch (error) {
    await stopProcessTree(server, exited);
    clearInterval(mailTimer);
    await smtp.close();
    const logTail = tail(path.join(artifacts, "server.log"));
    if (!process.env.E2E_KEEP_DATA) fs.rmSync(root, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}\n--- server.log ---\n${logTail}`);
  }
  console.log(`e2e: app up on :${APP_PORT} in ${((Date.now() - started) / 1000).toFixed(1)} s (data in ${root})`);

  process.env.E2E_BASE_URL = `http://localhost:${APP_PORT}`;
  process.env.E2E_MAIL_DIR = mailDir;
  process.env.E2E_DATA_DIR = dataDir;
  process.env.E2E_PG_PORT = String(PG_PORT);
  // Inherited by the workers, so a second server they start (next-door.spec.ts) delivers hooks alike.
  process.env.ARCA_HOOKS_ALLOW_PRIVATE = "true";

  return async () => {
    await stopProcessTree(server, exited);
    clearInterval(mailTimer);
    await smtp.close();
    fs.closeSync(log);
    if (!process.env.E2E_KEEP_DATA) fs.rmSync(root, { recursive: true, force: true });
  };
}

async function waitForServer(url: string, exited: Promise<number | null>, timeoutMs: number): Promise<void> {
  let gone: number | null | undefined;
  void exited.then((code) => (gone = code ?? -1));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone !== undefined) throw new Error(`The app exited with code ${gone} before answering`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 401 || response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`The app did not answer ${url} within ${timeoutMs / 1000} s`);
}

function tail(file: string): string {
  try {
    return fs.readFileSync(file, "utf8").split("\n").slice(-40).join("\n");
  } catch {
    return "(no log)";
  }
}
