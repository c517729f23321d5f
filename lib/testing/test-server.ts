import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { inject } from "vitest";
import { resetConfig } from "../config";
import { connectDatabase, disconnectDatabase } from "../db/pool";
import { startServer } from "../../server";
import { stopBackgroundWorkers } from "../background-workers";
import { startSmtpListener, type SmtpListener } from "./smtp-listener";

/**
 * A real Arca API server for one test file: the same `startServer` that `npm start` runs (without
 * the dashboard), on a random port, over the run's PostgreSQL, mailing a real SMTP listener.
 */
export interface TestServer {
  url: string;
  port: number;
  dataDir: string;
  smtp: SmtpListener;
  request(pathname: string, options?: RequestOptions): Promise<ApiResponse>;
  close(): Promise<void>;
}

export interface RequestOptions {
  method?: string;
  /** Sent as X-Project unless `host` is given. */
  project?: string;
  /** A Host header such as `demo.localhost` (sent with raw http, since fetch ignores Host). */
  host?: string;
  token?: string;
  session?: string;
  action?: string;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function startTestServer(): Promise<TestServer> {
  const smtp = await startSmtpListener();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "arca-test-"));
  process.env.DATABASE_URL = inject("databaseUrl");
  process.env.ARCA_DATA_DIR = dataDir;
  process.env.SMTP_URL = smtp.url;
  process.env.ARCA_SECRET ??= "test-secret-for-dashboard-cookies";
  // Every test file calls from 127.0.0.1 into one shared database: per-IP guessing limits would
  // add up across the suite. Tests of the limits set them (and ARCA_TRUST_PROXY) before starting.
  process.env.ARCA_RATE_LIMIT_FAILURES_PER_IP ??= "0";
  process.env.ARCA_RATE_LIMIT_SIGNUP_PER_IP ??= "0";
  resetConfig();
  connectDatabase(process.env.DATABASE_URL);
  const server = await startServer({ port: 0, withDashboard: false });
  const port = (server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}`;

  async function request(pathname: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.project && !options.host) headers["x-project"] = options.project;
    if (options.token) headers.authorization = `Token ${options.token}`;
    if (options.session) headers.authorization = `SessionId ${options.session}`;
    if (options.action) headers["x-action"] = options.action;
    let body = options.body;
    if (options.json !== undefined) {
      headers["content-type"] ??= "application/json";
      body = JSON.stringify(options.json);
    }
    const method = options.method ?? (body !== undefined || options.action ? "POST" : "GET");
    if (options.host) return rawRequest(port, pathname, method, { ...headers, host: `${options.host}:${port}` }, body);
    const response = await fetch(url + pathname, { method, headers, body, redirect: "manual" });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: parse(text) };
  }

  return {
    url,
    port,
    dataDir,
    smtp,
    request,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await stopBackgroundWorkers();
      await smtp.close();
      await disconnectDatabase();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function parse(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function rawRequest(port: number, pathname: string, method: string, headers: Record<string, string>, body?: BodyInit): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: pathname, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const responseHeaders = new Headers();
        for (const [key, value] of Object.entries(res.headers)) if (typeof value === "string") responseHeaders.set(key, value);
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, text, body: parse(text) });
      });
    });
    req.on("error", reject);
    if (typeof body === "string") req.write(body);
    req.end();
  });
}
