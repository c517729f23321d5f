import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
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
  /** Set when the suite runs with its bytes in S3 (ARCA_TEST_BLOB_STORE=s3): the bucket. */
  s3?: { client: S3Client; bucket: string };
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
  const s3 = process.env.ARCA_TEST_BLOB_STORE === "s3" ? await useS3Bucket() : undefined;
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
    s3,
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

/**
 * The same suites on S3 (CONTRACT §6 behaviour must be identical through both stores): a fresh
 * bucket on the run's real S3 server (Ceph RGW, lib/testing/global-setup.ts), set as the store.
 */
async function useS3Bucket(): Promise<{ client: S3Client; bucket: string }> {
  const endpoint = inject("s3Endpoint");
  const credentials = { accessKeyId: "TESTACCESSKEY0000001", secretAccessKey: "testsecretkey0000000000000000000000000001" };
  const bucket = `arca-test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const client = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  Object.assign(process.env, {
    ARCA_BLOB_STORE: "s3",
    ARCA_S3_ENDPOINT: endpoint,
    ARCA_S3_BUCKET: bucket,
    ARCA_S3_REGION: "us-east-1",
    ARCA_S3_ACCESS_KEY_ID: credentials.accessKeyId,
    ARCA_S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    ARCA_S3_FORCE_PATH_STYLE: "true",
  });
  return { client, bucket };
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
