import http from "node:http";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { assertHostAllowed, checkPublicUrl, isPrivateAddress, outboundDispatcher } from "./outbound-guard";

// The default (the suite's config allows loopback for its receivers): private targets refused.
process.env.ARCA_HOOKS_ALLOW_PRIVATE = "false";

describe("outbound guard", () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((_q, r) => r.end("hi")).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it.each([
    ["127.0.0.1", true], ["10.1.2.3", true], ["172.20.0.1", true], ["192.168.1.1", true], ["169.254.169.254", true],
    ["100.64.0.1", true], ["0.0.0.0", true], ["::1", true], ["fe80::1", true], ["fd12::1", true], ["::ffff:127.0.0.1", true],
    ["8.8.8.8", false], ["93.184.216.34", false], ["2606:4700::1111", false], ["not-an-ip", true],
    // IPv6 forms that carry a private IPv4 address (as `new URL` normalizes them, and as typed).
    ["::ffff:7f00:1", true], ["::7f00:1", true], ["::127.0.0.1", true], ["64:ff9b::7f00:1", true], ["64:ff9b::10.0.0.1", true],
    ["64:ff9b:1::a00:1", true], ["2002:7f00:1::", true], ["2002:c0a8:101::1", true], ["2001:0:4136:e378:8000:63bf:3fff:fdd2", true],
    ["64:ff9b::808:808", false], ["2002:808:808::1", false], ["::ffff:808:808", false], ["2001:db8::1", false],
  ])("isPrivateAddress(%s) is %s", (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });

  it("refuses this machine's own interface addresses, whatever their range", () => {
    const addresses = Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address));
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(isPrivateAddress(address), address).toBe(true);
  });

  it("refuses a name that resolves to loopback, at connect time and when checked up front", async () => {
    const error = await request(`http://localhost:${port}/`, { dispatcher: outboundDispatcher(1000) }).catch((e) => e);
    expect(error.code).toBe("EPRIVATEADDRESS");
    await expect(checkPublicUrl(new URL(`http://localhost:${port}/`))).rejects.toMatchObject({ code: "EPRIVATEADDRESS" });
    expect(() => assertHostAllowed(new URL(`http://127.0.0.1:${port}/`))).toThrow(/private address/);
    expect(() => assertHostAllowed(new URL(`http://[::1]:${port}/`))).toThrow(/private address/);
  });
});
