import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { uniqueEmail, uniqueProjectId } from "../lib/testing/fixtures";
import { startTestServer, type TestServer } from "../lib/testing/test-server";
import { until } from "../lib/api/tests/files-helpers";
import { parseArgs, parseCommand } from "./arca";

const run = promisify(execFile);
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

function arca(...args: string[]) {
  return run("npx", ["tsx", "scripts/arca.ts", ...args], {
    env: { ...process.env, DATABASE_URL: inject("databaseUrl") },
  });
}

describe("operator CLI", () => {
  it("creates a confirmed user, a project and a token whose secret works", async () => {
    const email = uniqueEmail("cli");
    const project = uniqueProjectId("cli");
    await arca("user", "create", email, "--password", "cli-password-1");
    await arca("project", "create", project, "--owner", email, "--name", "From CLI");
    const { stdout } = await arca("token", "create", project, "--name", "ci", "--permission", '{"allow":{"read":["posts"]}}');
    const secret = stdout.trim().split("\n").at(-1)!;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{32,}$/);

    // The token is known and may read `posts` (which does not exist yet): 404, not 401 or 403.
    const posts = await server.request("/api/collections/posts/documents/", { project, token: secret });
    expect(posts).toMatchObject({ status: 404, body: { message: "Collection not found." } });
    const login = await server.request("/api/user/", { action: "login", json: { email, password: "cli-password-1" } });
    expect(login.status).toBe(200);
    const info = await server.request("/api/info/", { project, session: login.body.sessionId });
    expect(info.status).toBe(200);
    expect(info.body.name).toBe("From CLI");
    // A reset to the same password keeps the sessions; a new password ends them (the server's
    // authentication cache holds a session for at most a second).
    await arca("user", "create", email, "--password", "cli-password-1");
    expect((await server.request("/api/info/", { project, session: login.body.sessionId })).status).toBe(200);
    await arca("user", "create", email, "--password", "cli-password-2");
    await until(async () => (await server.request("/api/info/", { project, session: login.body.sessionId })).status === 401);
    expect((await server.request("/api/user/", { action: "login", json: { email, password: "cli-password-2" } })).status).toBe(200);
    // An empty name is refused as the API refuses it (it was dropped: the default name was used).
    const unnamed = uniqueProjectId("cli");
    const empty = await arca("project", "create", unnamed, "--owner", email, "--name", "").catch((e) => e);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain("name");
    expect((await server.request("/api/info/", { project: unnamed, session: login.body.sessionId })).status).toBe(404);
  }, 90_000);

  it("fails with a clear message and exit code 1", async () => {
    const failure = await arca("project", "create", uniqueProjectId(), "--owner", uniqueEmail()).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain("No confirmed user");
    const unknown = await arca("token", "create", uniqueProjectId(), "--name", "x").catch((e) => e);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("arca: Project not found.");
    expect(unknown.stderr).not.toMatch(/prisma|invocation/i);
    const usage = await arca("fly").catch((e) => e);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain("usage:");
  }, 60_000);

  it("parses flags", () => {
    expect(parseArgs(["token", "create", "p", "--name", "n", "--permission={}"])).toEqual({
      words: ["token", "create", "p"],
      flags: { name: "n", permission: "{}" },
    });
    expect(() => parseArgs(["user", "create", "e", "--password"])).toThrow(/needs a value/);
  });

  it("refuses a misspelled flag, a stray word or a missing subject instead of ignoring it", () => {
    expect(() => parseCommand(["token", "create", "p", "--name", "n", "--permision", "{}"])).toThrow(/^unknown option --permision for token create/);
    expect(() => parseCommand(["project", "create", "p", "--owner", "o@x", "--nmae", "X"])).toThrow(/^unknown option --nmae/);
    expect(() => parseCommand(["user", "create", "a@x", "extra", "--password", "pw123456"])).toThrow(/^unexpected argument "extra"/);
    expect(() => parseCommand(["user", "create", "--password", "pw123456"])).toThrow(/^user create needs an e-mail address/);
    expect(() => parseCommand(["token", "create", "p"])).toThrow(/^--name is required/);
    expect(() => parseCommand(["user", "create", "a@x", "-p", "pw"])).toThrow(/^unknown option -p/);
    expect(() => parseCommand(["fly", "away"])).toThrow(/^unknown command: fly away/);
    expect(parseCommand(["token", "create", "p", "--name", "n"])).toEqual({ command: "token create", subject: "p", flags: { name: "n" } });
    expect(parseCommand(["blobs", "migrate", "--to", "s3"])).toEqual({ command: "blobs migrate", subject: undefined, flags: { to: "s3" } });
  });

  it("help, --help and -h print the usage on stdout and exit 0", async () => {
    for (const args of [["--help"], ["-h"], ["help"], ["token", "create", "--help"]]) {
      const { stdout, stderr } = await arca(...args);
      expect(stdout, args.join(" ")).toContain("usage:");
      expect(stdout).toContain("arca token create <project>");
      expect(stderr).not.toContain("usage:");
    }
  }, 60_000);
});
