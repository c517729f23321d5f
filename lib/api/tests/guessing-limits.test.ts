import { randomInt } from "node:crypto";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { apiSuite } from "../../testing/api-suite";
import { confirmationCodeOf, createToken, ownerWithProject, signUpUser, uniqueEmail } from "../../testing/fixtures";
import { RATE_LIMIT_DEFAULTS } from "../../rate-limits/rate-limit-config";

/**
 * Guessing limits (issue 17 item 3): counters in PostgreSQL per address and per client IP, 429
 * with Retry-After; sign-up codes of 60 bits that die after a few wrong tries; a bounded number
 * of password hashes at once. Limits and the window come from the environment, read at each use,
 * so each test narrows them; client IPs come from X-Forwarded-For (ARCA_TRUST_PROXY=true), a
 * fresh one per test, so tests and other files sharing the database never count together.
 */
process.env.ARCA_TRUST_PROXY = "true";
process.env.ARCA_RATE_LIMIT_FAILURES_PER_IP = "1000";
process.env.ARCA_RATE_LIMIT_SIGNUP_PER_IP = "1000";
const t = apiSuite();
afterAll(() => {
  // Should this process run another file, it starts from the defaults again.
  for (const name of ["ARCA_TRUST_PROXY", "ARCA_RATE_LIMIT_FAILURES_PER_IP", "ARCA_RATE_LIMIT_SIGNUP_PER_IP"]) delete process.env[name];
});

const narrowed = Object.keys(RATE_LIMIT_DEFAULTS);
let saved: Record<string, string | undefined>;
beforeEach(() => {
  saved = Object.fromEntries(narrowed.map((name) => [name, process.env[name]]));
});
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const freshIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
// The proxy in front appends the address it saw; what the client sent itself comes first.
const from = (ip: string) => ({ "x-forwarded-for": `192.0.2.${randomInt(1, 255)}, ${ip}` });

function expectTooMany(answer: { status: number; headers: Headers; body: any }, windowSeconds: number) {
  expect(answer.status).toBe(429);
  expect(answer.body).toEqual({ message: expect.any(String) });
  const retryAfter = Number(answer.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
}

describe("login", () => {
  it("locks an address after its wrong passwords: even the right one is refused until the window ends", async () => {
    process.env.ARCA_RATE_LIMIT_LOGIN_PER_ADDRESS = "3";
    process.env.ARCA_RATE_LIMIT_WINDOW_SECONDS = "2";
    const user = await signUpUser(t.server);
    const login = (password: string, ip = freshIp()) =>
      t.server.request("/api/user/", { action: "login", json: { email: user.email, password }, headers: from(ip) });
    for (let i = 0; i < 3; i++) expect((await login("wrong-password")).status).toBe(401);
    // Each from another IP: the limit is the address's.
    expectTooMany(await login(user.password), 2);
    expectTooMany(await login("wrong-password"), 2);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect((await login(user.password)).status).toBe(200);
  });

  it("resets the address's count on a successful login", async () => {
    process.env.ARCA_RATE_LIMIT_LOGIN_PER_ADDRESS = "3";
    const user = await signUpUser(t.server);
    const login = (password: string) => t.server.request("/api/user/", { action: "login", json: { email: user.email, password }, headers: from(freshIp()) });
    for (let i = 0; i < 2; i++) expect((await login("wrong-password")).status).toBe(401);
    expect((await login(user.password)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await login("wrong-password")).status).toBe(401);
    expect((await login(user.password)).status).toBe(429);
  });

  it("counts wrong passwords per client IP across addresses, unknown addresses included", async () => {
    // Signed up from loopback before the limit narrows: other files' servers share the database
    // and count their own failures from 127.0.0.1, which would block this process's loopback.
    const user = await signUpUser(t.server);
    process.env.ARCA_RATE_LIMIT_FAILURES_PER_IP = "4";
    const ip = freshIp();
    for (let i = 0; i < 4; i++) {
      const answer = await t.server.request("/api/user/", { action: "login", json: { email: uniqueEmail(), password: "whatever-1" }, headers: from(ip) });
      expect(answer.status).toBe(401);
    }
    const refused = await t.server.request("/api/user/", { action: "login", json: user, headers: from(ip) });
    expectTooMany(refused, 900);
    const elsewhere = await t.server.request("/api/user/", { action: "login", json: user, headers: from(freshIp()) });
    expect(elsewhere.status).toBe(200);
  });
});

describe("failed token and session checks", () => {
  it("answer 429 from an IP past its failures, valid credentials included; other IPs are unaffected", async () => {
    process.env.ARCA_RATE_LIMIT_FAILURES_PER_IP = "5";
    const ip = freshIp();
    const as = (token: string, at = ip) => ({ project: t.owner.project, token, headers: from(at) });
    for (let i = 0; i < 5; i++) expect((await t.server.request("/api/collections/", as(`forged-${i}`))).status).toBe(401);
    expectTooMany(await t.server.request("/api/collections/", as("forged-x")), 900);
    expectTooMany(await t.server.request("/api/collections/", as(t.owner.token)), 900);
    expectTooMany(await t.server.request("/api/user/", { session: "forged-session", headers: from(ip) }), 900);
    expect((await t.server.request("/api/collections/", as(t.owner.token, freshIp()))).status).toBe(200);
    // Requests without credentials are no guesses: still the plain 401.
    expect((await t.server.request("/api/collections/", { project: t.owner.project, headers: from(ip) })).status).toBe(401);
  });

  it("count forged sessions on account routes and ?token= alike", async () => {
    process.env.ARCA_RATE_LIMIT_FAILURES_PER_IP = "2";
    const ip = freshIp();
    expect((await t.server.request("/api/user/", { session: "nope", headers: from(ip) })).status).toBe(401);
    expect((await t.server.request("/api/collections/?token=nope", { project: t.owner.project, headers: from(ip) })).status).toBe(401);
    expect((await t.server.request("/api/user/projects/", { session: "nope", headers: from(ip) })).status).toBe(429);
  });

  it("ignore X-Forwarded-For unless ARCA_TRUST_PROXY=true", async () => {
    process.env.ARCA_TRUST_PROXY = "false";
    process.env.ARCA_RATE_LIMIT_FAILURES_PER_IP = "0";
    try {
      // Per-IP limits off for 127.0.0.1 in this file; a forged X-Forwarded-For changes nothing.
      for (let i = 0; i < 3; i++) expect((await t.server.request("/api/user/", { session: "nope", headers: from("10.0.0.1") })).status).toBe(401);
    } finally {
      process.env.ARCA_TRUST_PROXY = "true";
    }
  });
});

describe("sign-up", () => {
  it("limits sign-ups per address and per IP", async () => {
    process.env.ARCA_RATE_LIMIT_SIGNUP_PER_ADDRESS = "2";
    process.env.ARCA_RATE_LIMIT_SIGNUP_PER_IP = "3";
    const email = uniqueEmail();
    const signUp = (address: string, ip: string) => t.server.request("/api/user/", { json: { email: address, password: "password-123" }, headers: from(ip) });
    expect((await signUp(email, freshIp())).status).toBe(201);
    expect((await signUp(email, freshIp())).status).toBe(201);
    expectTooMany(await signUp(email, freshIp()), 900);
    const ip = freshIp();
    for (let i = 0; i < 3; i++) expect((await signUp(uniqueEmail(), ip)).status).toBe(201);
    expectTooMany(await signUp(uniqueEmail(), ip), 900);
  });
});

describe("confirmation codes", () => {
  async function signUpFor(email = uniqueEmail()) {
    const answer = await t.server.request("/api/user/", { json: { email, password: "password-123" }, headers: from(freshIp()) });
    expect(answer.status).toBe(201);
    const mail = await t.server.smtp.waitForMail((m) => m.to.includes(email) && !m.text.includes("__seen__"));
    (mail as { text: string }).text += "__seen__";
    const code = confirmationCodeOf(mail.text);
    expect(code, mail.text).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    return { email, code: code! };
  }
  const confirm = (json: Record<string, unknown>, ip = freshIp()) => t.server.request("/api/user/", { action: "confirm", json, headers: from(ip) });

  it("are mailed grouped and accepted without dashes, in lower case", async () => {
    const { code } = await signUpFor();
    const answer = await confirm({ code: code.replace(/-/g, "").toLowerCase() });
    expect(answer.status).toBe(200);
    expect(typeof answer.body.sessionId).toBe("string");
    expect(await confirm({ code })).toMatchObject({ status: 409, body: { message: "User already exists." } });
  });

  it("die after 5 wrong tries sent with the address", async () => {
    const { email, code } = await signUpFor();
    for (let i = 0; i < 5; i++) expect(await confirm({ code: `0000-0000-000${i}`, email })).toMatchObject({ status: 404, body: { message: "Confirmation code not found." } });
    expect(await confirm({ code, email })).toMatchObject({ status: 404, body: { message: "Confirmation code not found." } });
    expect((await confirm({ code })).status).toBe(404);
  });

  it("survive fewer wrong tries, and parallel guesses cannot pass the count", async () => {
    const { email, code } = await signUpFor();
    const guesses = await Promise.all(Array.from({ length: 12 }, (_, i) => confirm({ code: `ZZZZ-ZZZZ-ZZ${String(i).padStart(2, "0")}`, email })));
    expect(guesses.every((g) => g.status === 404)).toBe(true);
    expect((await confirm({ code, email })).status).toBe(404);

    const second = await signUpFor();
    for (let i = 0; i < 4; i++) expect((await confirm({ code: "ZZZZ-ZZZZ-ZZZZ", email: second.email })).status).toBe(404);
    expect((await confirm({ code: second.code, email: second.email })).status).toBe(200);
  });

  it("are one per address: a new sign-up replaces the code", async () => {
    const first = await signUpFor();
    const second = await signUpFor(first.email);
    expect(second.code).not.toBe(first.code);
    expect((await confirm({ code: first.code })).status).toBe(404);
    expect((await confirm({ code: second.code })).status).toBe(200);
  });

  it("count wrong codes per IP", async () => {
    process.env.ARCA_RATE_LIMIT_FAILURES_PER_IP = "3";
    const ip = freshIp();
    const { code } = await signUpFor();
    for (let i = 0; i < 3; i++) expect((await confirm({ code: "ZZZZ-ZZZZ-ZZZZ" }, ip)).status).toBe(404);
    expectTooMany(await confirm({ code }, ip), 900);
    expect((await confirm({ code }, freshIp())).status).toBe(200);
  });
});

describe("invitation links", () => {
  it("count unknown links per IP, on reading and on accepting", async () => {
    process.env.ARCA_RATE_LIMIT_FAILURES_PER_IP = "3";
    const ip = freshIp();
    expect((await t.server.request("/api/invitations/not-a-link/", { headers: from(ip) })).status).toBe(404);
    expect((await t.server.request("/api/invitations/not-a-link-2/", { action: "accept", json: { password: "password-123" }, headers: from(ip) })).status).toBe(404);
    expect((await t.server.request("/api/invitations/not-a-link-3/", { action: "resend", json: {}, headers: from(ip) })).status).toBe(404);
    expectTooMany(await t.server.request("/api/invitations/not-a-link-4/", { action: "accept", json: { password: "password-123" }, headers: from(ip) }), 900);
  });
});

describe("password hashing under a login flood", () => {
  it("keeps other requests answering while 50 wrong logins run", async () => {
    const other = await ownerWithProject(t.server);
    const token = await createToken(t.server, other.session, other.project);
    const created = await t.server.request("/api/collections/notes/documents/", { project: other.project, token, json: { _id: "n1", text: "still here" } });
    expect(created.status).toBe(201);

    let floodDone = false;
    const flood = Promise.all(
      Array.from({ length: 50 }, () =>
        t.server.request("/api/user/", { action: "login", json: { email: uniqueEmail(), password: "wrong-password" }, headers: from(freshIp()) }),
      ),
    ).then((answers) => {
      floodDone = true;
      return answers;
    });
    const read = await t.server.request("/api/collections/notes/documents/n1/", { project: other.project, token });
    const readBeforeFloodEnded = !floodDone;
    const answers = await flood;
    expect(read.status).toBe(200);
    expect(read.body.text).toBe("still here");
    expect(readBeforeFloodEnded).toBe(true);
    // Beyond the hash queue the flood is refused at once (503 with Retry-After), never stalled.
    for (const answer of answers) expect([401, 503]).toContain(answer.status);
    for (const answer of answers.filter((a) => a.status === 503)) expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});

describe("account routes refuse tokens; logout", () => {
  it("answers 401 to a token on /api/user/... and /api/info/, while sessions work", async () => {
    const as = { project: t.owner.project };
    for (const credentials of [{ token: t.owner.token }, { headers: { authorization: `Bearer ${t.owner.token}` } }]) {
      expect(await t.server.request("/api/info/", { ...as, ...credentials })).toMatchObject({ status: 401, body: { message: "Not authorized" } });
      expect(await t.server.request("/api/user/", credentials)).toMatchObject({ status: 401, body: { message: "Not authorized" } });
      expect((await t.server.request("/api/user/projects/", credentials)).status).toBe(401);
    }
    expect((await t.server.request(`/api/info/?token=${t.owner.token}`, as)).status).toBe(401);
    expect((await t.server.request(`/api/user/?token=${t.owner.token}`)).status).toBe(401);
    expect((await t.server.request("/api/info/", { ...as, session: t.owner.session })).status).toBe(200);
    expect((await t.server.request("/api/user/projects/", { session: t.owner.session })).status).toBe(200);
  });

  it("logout answers 204 with an empty body; the session is 401 afterwards", async () => {
    const login = await t.server.request("/api/user/", { action: "login", json: { email: t.owner.email, password: t.owner.password } });
    const session = login.body.sessionId;
    const logout = await t.server.request("/api/user/", { action: "logout", session });
    expect(logout.status).toBe(204);
    expect(logout.text).toBe("");
    expect(await t.server.request("/api/user/", { session })).toMatchObject({ status: 401, body: { message: "Not authorized" } });
    expect((await t.server.request("/api/user/", { action: "logout", session })).status).toBe(401);
  });
});
