import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: { "@": fileURLToPath(new URL("./", import.meta.url)) },
  },
  test: {
    include: ["lib/**/*.test.ts", "scripts/**/*.test.ts"],
    globalSetup: ["lib/testing/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Every receiver and vendor stand-in of the tests listens on loopback, and the test servers
    // of all files share one database, so any of them may claim another file's hook deliveries:
    // all must be allowed to reach loopback. Tests of the SSRF guard set it to "false" themselves.
    env: { ARCA_HOOKS_ALLOW_PRIVATE: "true" },
  },
});
