import { describe, expect, it } from "vitest";
import { clientAddress } from "./client-address";

describe("clientAddress", () => {
  it("is the socket's peer unless a proxy is trusted", () => {
    expect(clientAddress({ socketAddress: "203.0.113.7", forwardedFor: "10.0.0.1", trustProxy: false })).toBe("203.0.113.7");
    expect(clientAddress({ socketAddress: "::ffff:127.0.0.1", forwardedFor: undefined, trustProxy: false })).toBe("127.0.0.1");
    expect(clientAddress({ socketAddress: undefined, forwardedFor: "10.0.0.1", trustProxy: false })).toBeUndefined();
  });

  it("behind a trusted proxy, is the address the proxy appended, not one the client sent", () => {
    expect(clientAddress({ socketAddress: "127.0.0.1", forwardedFor: "1.2.3.4, 203.0.113.9", trustProxy: true })).toBe("203.0.113.9");
    expect(clientAddress({ socketAddress: "127.0.0.1", forwardedFor: "2001:DB8::1", trustProxy: true })).toBe("2001:db8::1");
    expect(clientAddress({ socketAddress: "127.0.0.1", forwardedFor: "garbage", trustProxy: true })).toBe("127.0.0.1");
  });
});
