import { describe, expect, it } from "vitest";
import { ConfigError, readConfig as readConfigFrom } from "./config";

const readConfig = (env: Record<string, string>) => readConfigFrom(env as NodeJS.ProcessEnv);

describe("readConfig", () => {
  it("takes the admin user's two variables together, or neither", () => {
    expect(readConfig({ ARCA_ADMIN_EMAIL: "a@example.com", ARCA_ADMIN_PASSWORD: "long password" })).toMatchObject({ adminEmail: "a@example.com", adminPassword: "long password" });
    expect(readConfig({})).toMatchObject({ adminEmail: undefined, adminPassword: undefined });
    for (const env of [{ ARCA_ADMIN_EMAIL: "a@example.com" }, { ARCA_ADMIN_PASSWORD: "long password" }] as Record<string, string>[]) {
      expect(() => readConfig(env)).toThrow(ConfigError);
      expect(() => readConfig(env)).toThrow("ARCA_ADMIN_EMAIL and ARCA_ADMIN_PASSWORD go together: set both, or neither");
    }
  });

  it("refuses what it cannot use, by name", () => {
    expect(() => readConfig({ PORT: "eighty" })).toThrow(new ConfigError('PORT must be a whole number, not "eighty"'));
    expect(() => readConfig({ ARCA_MAX_FILE_SIZE: "10MB" })).toThrow(new ConfigError('ARCA_MAX_FILE_SIZE must be a whole number, not "10MB"'));
    expect(() => readConfig({ ARCA_PROCESSOR_TIMEOUT_MS: "abc" })).toThrow(new ConfigError('ARCA_PROCESSOR_TIMEOUT_MS must be a whole number, not "abc"'));
    expect(() => readConfig({ ARCA_PROCESSOR_TIMEOUT_MS: "0" })).toThrow(new ConfigError('ARCA_PROCESSOR_TIMEOUT_MS must be a whole number above 0, not "0"'));
    expect(readConfig({ ARCA_PROCESSOR_TIMEOUT_MS: "1500" }).port).toBe(3000);
    expect(() => readConfig({ ARCA_BLOB_STORE: "ftp" })).toThrow(ConfigError);
  });
});
