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
    expect(() => readConfig({ PORT: "eighty" })).toThrow(new ConfigError("Not a whole number: eighty"));
    expect(() => readConfig({ ARCA_BLOB_STORE: "ftp" })).toThrow(ConfigError);
  });
});
