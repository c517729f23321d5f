import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { retryAfterSeconds } from "./deliver-hook";
import { retryDelay } from "./hook-deliveries";
import { timeOrderedUuid } from "./hook-history";
import { hookSignatureHeaders } from "./hook-signature";

describe("hook signatures", () => {
  it("match what a Standard Webhooks library computes, for whsec_ and raw secrets", () => {
    const at = new Date("2026-11-23T10:00:00Z");
    const body = JSON.stringify({ payload: { _id: "x" } });
    for (const [secret, webhook] of [
      ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", new Webhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")],
      ["plain secret", new Webhook("plain secret", { format: "raw" })],
    ] as const) {
      const headers = hookSignatureHeaders(secret, "msg_1", body, at);
      expect(headers["webhook-signature"]).toBe(webhook.sign("msg_1", at, body));
      expect(headers["webhook-timestamp"]).toBe(String(at.getTime() / 1000));
    }
    expect(hookSignatureHeaders("", "msg_1", body)).toEqual({});
  });
});

describe("retry timing", () => {
  it("exponential doubles from 2 s, constant stays at 2 s", () => {
    expect([1, 2, 3, 4, 5, 9].map((a) => retryDelay("exponential", a))).toEqual([2, 4, 8, 16, 32, 512]);
    expect([1, 5, 9].map((a) => retryDelay("constant", a))).toEqual([2, 2, 2]);
  });

  it("reads Retry-After as seconds or a date, at most an hour", () => {
    const now = Date.parse("2026-11-23T10:00:00Z");
    expect(retryAfterSeconds("7", now)).toBe(7);
    expect(retryAfterSeconds("86400", now)).toBe(3600);
    expect(retryAfterSeconds("Mon, 23 Nov 2026 10:00:30 GMT", now)).toBe(30);
    expect(retryAfterSeconds("garbage", now)).toBeUndefined();
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
  });
});

describe("operation ids", () => {
  it("are time-ordered UUIDs, the same for the same seed", () => {
    const a = timeOrderedUuid(1000, "p/h/1");
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(timeOrderedUuid(1000, "p/h/1")).toBe(a);
    expect(timeOrderedUuid(1000, "p/h/2")).not.toBe(a);
    expect(timeOrderedUuid(2000) > timeOrderedUuid(1000)).toBe(true);
  });
});
