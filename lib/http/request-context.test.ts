import { describe, expect, it } from "vitest";
import { projectFromHost } from "./request-context";

describe("projectFromHost", () => {
  it("reads the project label before the base domain, port and case aside, a fully qualified trailing dot too", () => {
    for (const host of ["demo.localhost", "demo.localhost:3000", "DEMO.Localhost:3000", "demo.localhost.", "demo.localhost.:3000"]) expect(projectFromHost(host, "localhost"), host).toBe("demo");
    for (const host of ["localhost", "localhost.:3000", "a.b.localhost", ".localhost", "demo.localhostx", "demo.localhost..", undefined]) expect(projectFromHost(host, "localhost"), String(host)).toBeUndefined();
  });
});
