import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "./password";
import { generateId, hashSecret, randomSecret } from "./secrets";

describe("passwords", () => {
  it("verifies the right password and refuses a wrong one", async () => {
    const stored = await hashPassword("correct horse");
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await verifyPassword("correct horse", stored)).toBe(true);
    expect(await verifyPassword("correct hors", stored)).toBe(false);
    expect(await verifyPassword("x", "garbage")).toBe(false);
  });

  it("salts each hash", async () => {
    expect(await hashPassword("same")).not.toBe(await hashPassword("same"));
  });
});

describe("secrets", () => {
  it("makes long random secrets and stable hashes", () => {
    const secret = randomSecret();
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(hashSecret(secret)).toBe(hashSecret(secret));
    expect(hashSecret(secret)).not.toContain(secret);
  });

  it("generates time-ordered 24-hex ids", async () => {
    const ids = Array.from({ length: 1000 }, generateId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
