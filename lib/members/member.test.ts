import { describe, expect, it } from "vitest";
import { memberView, parseMemberFields } from "./member";
import { publicOrigin } from "./public-url";

describe("memberView", () => {
  it("has exactly the contract's four keys; date_joined is null until joined", () => {
    expect(memberView({ email: "a@b.test", userId: null, role: "member", isActive: true, dateJoined: null })).toEqual({
      _id: "a@b.test",
      is_active: true,
      role: "member",
      date_joined: null,
    });
    const joined = new Date("2026-01-02T03:04:05.678Z");
    expect(memberView({ email: "a@b.test", userId: "u1", role: "admin", isActive: false, dateJoined: joined })).toEqual({
      _id: "a@b.test",
      is_active: false,
      role: "admin",
      date_joined: "2026-01-02T03:04:05.678Z",
    });
  });
});

describe("parseMemberFields", () => {
  it("reads role and is_active, tolerates read-only keys", () => {
    expect(parseMemberFields({ _id: "x", role: "admin", is_active: false, date_joined: null, status: "active" })).toEqual({
      role: "admin",
      isActive: false,
    });
  });

  it("refuses unknown roles and properties with 422", () => {
    expect(() => parseMemberFields({ role: "boss" })).toThrowError(expect.objectContaining({ status: 422 }));
    expect(() => parseMemberFields({ is_active: "yes" })).toThrowError(expect.objectContaining({ status: 422 }));
    expect(() => parseMemberFields({ password: "x" })).toThrowError(expect.objectContaining({ status: 422 }));
  });
});

describe("publicOrigin", () => {
  it("prefers ARCA_PUBLIC_URL without its trailing slash", () => {
    expect(publicOrigin({ ARCA_PUBLIC_URL: "https://arca.example.com/" })).toBe("https://arca.example.com");
  });
});
