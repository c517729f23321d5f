import { request } from "undici";
import { assertHostAllowed, outboundDispatcher, PrivateAddressError } from "../net/outbound-guard";
import { MAX_VENDOR_RESPONSE_BYTES } from "./processor-limits";
import type { ProcessorCall } from "./processor-types";

/**
 * Every outbound call of a processor: through the SSRF guard (the resolved address is checked in
 * the socket's lookup, literal IPs up front, each redirect hop again), bounded by the processor's
 * time limit and a response size cap. Failures become 502 naming the processor, except a refused
 * private target that the document or schema named (`userUrl`), which is the client's mistake: 422.
 */
export interface VendorAnswer {
  status: number;
  contentType: string;
  body: Buffer;
  url: URL;
}

const MAX_REDIRECTS = 5;

export async function vendorRequest(
  call: ProcessorCall,
  target: URL,
  init: { method?: "GET" | "POST"; headers?: Record<string, string>; body?: string; userUrl?: boolean; followRedirects?: boolean },
): Promise<VendorAnswer> {
  let url = target;
  try {
    for (let hop = 0; ; hop++) {
      if (url.protocol !== "http:" && url.protocol !== "https:") throw call.invalid(`${call.name}: only http and https URLs are allowed`);
      assertHostAllowed(url);
      const response = await request(url, {
        method: init.method ?? "POST",
        headers: { "user-agent": "Arca-Processors/1.0", ...init.headers },
        body: init.body,
        dispatcher: outboundDispatcher(10_000),
        signal: call.signal,
      });
      const location = response.headers.location;
      if (init.followRedirects && response.statusCode >= 300 && response.statusCode < 400 && typeof location === "string") {
        await response.body.dump({ limit: 64 * 1024 }).catch(() => {});
        if (hop >= MAX_REDIRECTS) throw call.vendorFailed("too many redirects");
        url = new URL(location, url);
        continue;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += chunk.length;
        if (size > MAX_VENDOR_RESPONSE_BYTES) {
          response.body.destroy();
          throw call.vendorFailed(`answer larger than ${MAX_VENDOR_RESPONSE_BYTES} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      const contentType = String(response.headers["content-type"] ?? "");
      return { status: response.statusCode, contentType, body: Buffer.concat(chunks), url };
    }
  } catch (error) {
    if ((error as Error).name === "AppError") throw error;
    if (error instanceof PrivateAddressError || (error as { cause?: unknown }).cause instanceof PrivateAddressError) {
      if (init.userUrl) throw call.invalid(`${call.name}: ${url.hostname} is a private address`);
      throw call.vendorFailed(`${url.hostname} is a private address`);
    }
    if (call.signal.aborted) throw call.vendorFailed("timed out");
    throw call.vendorFailed(describe(error));
  }
}

/** A vendor's JSON answer, or 502 with its status (never its body: it may echo the key). */
export async function vendorJson(call: ProcessorCall, target: URL, init: Parameters<typeof vendorRequest>[2] & { json?: unknown }): Promise<any> {
  const answer = await vendorRequest(call, target, {
    ...init,
    headers: { "content-type": "application/json", accept: "application/json", ...init.headers },
    body: init.json === undefined ? init.body : JSON.stringify(init.json),
  });
  if (answer.status < 200 || answer.status >= 300) throw call.vendorFailed(`the vendor answered ${answer.status}`);
  try {
    return JSON.parse(answer.body.toString("utf8"));
  } catch {
    throw call.vendorFailed("the vendor's answer is not JSON");
  }
}

/** The configured base URL of a vendor (ARCA_VENDOR_<NAME>_URL), without a trailing slash. */
export function vendorBase(name: string, fallback: string): string {
  return (process.env[`ARCA_VENDOR_${name}_URL`] || fallback).replace(/\/+$/, "");
}

function describe(error: unknown): string {
  const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ENOTFOUND") return "host not found";
  if (code === "UND_ERR_CONNECT_TIMEOUT") return "connect timeout";
  if (e.name === "AbortError" || code === "ABORT_ERR") return "timed out";
  return (e.cause?.message ?? e.message ?? "request failed").split("\n")[0];
}
