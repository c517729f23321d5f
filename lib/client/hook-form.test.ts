import { describe, expect, it } from "vitest";
import { changedInput, checkDraft, draftFromHook, formatDuration, generateSecret, headerRow, hookInput, placeServerErrors, unchangedOnly } from "./hook-form";
import type { Hook } from "./webhooks";

const hook: Hook = {
  _id: "h1",
  name: "Orders",
  collection: "orders",
  conditions: { properties: { total: { minimum: 100 } } },
  method: "PUT",
  url: "https://example.com/in",
  headers: { "X-Env": "prod" },
  triggers: ["created", "deleted"],
  request_payload_wrapper: "",
  timeout: { read: 2.5, connect: 0.5 },
  retry: { strategy: "constant" },
  secret: "whsec_abc",
  is_active: false,
};

describe("hook form", () => {
  it("round-trips a hook through a draft", () => {
    const { _id, ...input } = hook;
    expect(_id).toBe("h1");
    expect(hookInput(draftFromHook(hook))).toEqual(input);
  });

  it("an edit sends only what changed since the form opened (others' changes meanwhile stay)", () => {
    const opened = hookInput(draftFromHook(hook));
    expect(changedInput(opened, opened)).toEqual({});
    const edited = hookInput({ ...draftFromHook(hook), name: "renamed", headers: [...draftFromHook(hook).headers, headerRow("X-New", "1")] });
    expect(Object.keys(changedInput(opened, edited)).sort()).toEqual(["headers", "name"]);
    expect(changedInput(opened, edited).headers).toEqual(edited.headers);
  });

  it("starts from the API's defaults", () => {
    const draft = { ...draftFromHook(), collection: "orders", url: "http://example.com/" };
    expect(checkDraft(draft)).toEqual({});
    expect(hookInput(draft)).toMatchObject({
      method: "POST",
      triggers: ["created", "updated", "deleted"],
      conditions: null,
      headers: {},
      timeout: { read: 5, connect: 1 },
      retry: { strategy: "exponential" },
      request_payload_wrapper: "payload",
      secret: "",
      is_active: true,
    });
  });

  it("checks what the browser can as you type", () => {
    const draft = {
      ...draftFromHook(),
      url: "ftp://example.com",
      triggers: [],
      conditions: '{"type": "object",}',
      readTimeout: "0",
      connectTimeout: "91",
      headers: [headerRow("X-A", "1"), headerRow("x-a", "2"), headerRow("bad name", "3"), headerRow("", ""), headerRow("X-B", "a\nb")],
    };
    const errors = checkDraft(draft);
    expect(Object.keys(errors).sort()).toEqual(["collection", "conditions", "headerRow.1", "headerRow.2", "headerRow.4", "timeout.connect", "timeout.read", "triggers", "url"]);
    expect(errors.conditions).toMatch(/^Invalid JSON at line 1/);
    expect(checkDraft({ ...draft, conditions: "[1]" }).conditions).toBe("Conditions must be a JSON object ({ ... }).");
  });

  it("leaves empty header rows out of what is sent", () => {
    const draft = { ...draftFromHook(), headers: [headerRow("X-A", "1"), headerRow("", "")] };
    expect(hookInput(draft).headers).toEqual({ "X-A": "1" });
  });

  it("places the API's 422 errors on their fields and header rows", () => {
    const draft = { ...draftFromHook(), headers: [headerRow("X-Ok", "1"), headerRow("X-Hook-ID", "2")] };
    const placed = placeServerErrors(
      [
        { property: "conditions", message: "is not a valid JSON Schema: schema is invalid" },
        { property: "headers.X-Hook-ID", message: "is not a header a hook may set" },
        { property: "timeout.read", message: "must be a number of seconds from 0.01 to 90" },
        { property: "url", message: "must not point to a loopback, private or link-local address" },
        { property: "surprise", message: "is not a hook property" },
        { property: null, message: "Something else" },
      ],
      draft,
    );
    expect(placed.byField).toEqual({
      conditions: "is not a valid JSON Schema: schema is invalid",
      "headerRow.1": "is not a header a hook may set",
      "timeout.read": "must be a number of seconds from 0.01 to 90",
      url: "must not point to a loopback, private or link-local address",
    });
    expect(placed.general).toEqual(["surprise: is not a hook property", "Something else"]);
  });

  it("keeps a server error only while its field is unchanged; a header row's error follows the row", () => {
    const sent = { ...draftFromHook(), conditions: '{"type": 12}', url: "http://10.0.0.1/", headers: [headerRow("X-Ok", "1"), headerRow("X-Hook-ID", "2"), headerRow("X-Hook-Trigger", "3")] };
    const { byField } = placeServerErrors(
      [
        { property: "conditions", message: "bad schema" },
        { property: "url", message: "private" },
        { property: "headers.X-Hook-ID", message: "reserved" },
        { property: "headers.X-Hook-Trigger", message: "reserved too" },
      ],
      sent,
    );
    // The conditions fixed, the first header row removed, the third renamed.
    const current = { ...sent, conditions: "{}", headers: [sent.headers[1], { ...sent.headers[2], name: "X-Other" }] };
    expect(unchangedOnly(byField, sent, current)).toEqual({ url: "private", "headerRow.0": "reserved" });
    expect(unchangedOnly(byField, sent, sent)).toEqual(byField);
  });

  it("generates Standard Webhooks secrets from 24 random bytes", () => {
    const fixed = generateSecret((bytes) => bytes.fill(0xfb));
    expect(fixed).toBe(`whsec_${Buffer.alloc(24, 0xfb).toString("base64")}`);
    const a = generateSecret();
    const b = generateSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(a.slice(6), "base64")).toHaveLength(24);
    expect(a).not.toBe(b);
  });

  it("formats durations in milliseconds", () => {
    expect(formatDuration(3.456)).toBe("3.5 ms");
    expect(formatDuration(42.4)).toBe("42 ms");
    expect(formatDuration(1234)).toBe("1.23 s");
    expect(formatDuration(61_000)).toBe("61 s");
    expect(formatDuration(null)).toBe("-");
  });
});
