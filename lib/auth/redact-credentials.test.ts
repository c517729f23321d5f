import { describe, expect, it } from "vitest";
import { redactHeader, redactUrl } from "./redact-credentials";

describe("redactUrl", () => {
  it("redacts ?token= however its name is written", () => {
    for (const name of ["token", "%74oken", "%74%6F%6B%65%6E", "TOKEN", "To%6Ben", "token%20", "%54OKEN"])
      expect(redactUrl(`http://a.localhost/api/x/?a=1&${name}=s3cret&b=2`)).toBe(`http://a.localhost/api/x/?a=1&${name}=[redacted]&b=2`);
  });

  it("redacts every occurrence, and keeps other parameters and malformed escapes as they are", () => {
    expect(redactUrl("/api/x?token=a&token=b&%zz=1&tok=2")).toBe("/api/x?token=[redacted]&token=[redacted]&%zz=1&tok=2");
    expect(redactUrl("/api/x?%E0%A4%A&%74oken=s3cret")).toBe("/api/x?%E0%A4%A&%74oken=[redacted]");
  });

  it("leaves URLs without credentials alone", () => {
    expect(redactUrl("/api/collections/?page=2")).toBe("/api/collections/?page=2");
    expect(redactUrl("/api/collections/")).toBe("/api/collections/");
  });

  it("redacts the document segment of a _tokens path (a token may be addressed by its secret)", () => {
    expect(redactUrl("http://p.localhost/api/collections/_tokens/documents/s3cret/?page=1")).toBe("http://p.localhost/api/collections/_tokens/documents/[redacted]/?page=1");
    expect(redactUrl("/api/collections/%5Ftokens/documents/s3cret")).toBe("/api/collections/%5Ftokens/documents/[redacted]");
    expect(redactUrl("/api/collections/_tokens/documents/")).toBe("/api/collections/_tokens/documents/");
    expect(redactUrl("/api/collections/posts/documents/_tokens/")).toBe("/api/collections/posts/documents/_tokens/");
  });

  it("redacts a fragment that names a token", () => {
    expect(redactUrl("/f?x=1#token=abc")).toBe("/f?x=1#[redacted]");
  });
});

describe("redactHeader", () => {
  it("hides credential headers whole and credential parameters in URL headers", () => {
    expect(redactHeader("Authorization", "Token abc")).toBe("[redacted]");
    expect(redactHeader("cookie", "authjs.session-token=abc")).toBe("[redacted]");
    expect(redactHeader("referer", "http://x/api/f?%74oken=abc")).toBe("http://x/api/f?%74oken=[redacted]");
    expect(redactHeader("x-project", "demo")).toBe("demo");
  });
});
