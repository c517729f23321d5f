import { conflict, notFound, unauthorized, validationError } from "../errors";
import { prisma } from "../db/pool";
import { query, queryOne, transaction } from "../db/query";
import { sql } from "../db/sql";
import { assertFailuresUnder, countFailure, guessingLimits, type Client } from "../rate-limits/guessing-limits";
import { clearLimit, countAttempt } from "../rate-limits/rate-limiter";
import { rateLimitConfig } from "../rate-limits/rate-limit-config";
import { sendMail } from "../mail/send-mail";
import { signupConfirmationMail } from "../mail/templates";
import { whileNarrowingAccess } from "./auth-cache";
import { hashPassword, UNUSABLE_HASH, verifyPassword } from "./password";
import { generateId, hashSecret, randomSecret } from "./secrets";
import { isValidEmail, normalizeEmail } from "./email";
import { formatSignupCode, newSignupCode, normalizeSignupCode } from "./signup-code";

/** Accounts: sign-up with a mailed code, confirmation, sessions (CONTRACT §2). */
export interface PublicUser {
  _id: string;
  email: string;
  name: string;
}

const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
const CODE_TTL_MS = 24 * 3600 * 1000;
const MIN_PASSWORD = 8;
/** Callers without a network address (the CLI, start-up): only per-address limits apply. */
const NO_CLIENT: Client = { address: undefined };

export async function signUp(input: Record<string, unknown>, client: Client = NO_CLIENT): Promise<void> {
  const email = requireEmail(input.email);
  const password = requirePassword(input.password);
  // As PATCH /api/user/ checks it: a name that is not text is refused, never dropped. (Other keys
  // are left alone: clients of the original service may send more than the seed shows.)
  if (input.name !== undefined && input.name !== null) requireUserName(input.name);
  // Every sign-up mails a code and costs a hash: counted per address and per client, taken or not.
  await countAttempt([guessingLimits.signUpAddress(email), ...guessingLimits.signUpIp(client)]);
  const db = prisma();
  const existing = await db.user.findUnique({ where: { email } });
  if (existing?.confirmedAt) throw conflict("User already exists.");
  const passwordHash = await hashPassword(password);
  const name = typeof input.name === "string" ? input.name : "";
  // An unconfirmed account may sign up again (a lost code); the newest password and code win.
  const user = existing
    ? await db.user.update({ where: { id: existing.id }, data: { passwordHash, name } })
    : await db.user.create({ data: { id: generateId(), email, passwordHash, name } });
  const code = newSignupCode();
  // One live code per address: a new sign-up replaces the old code (and its count of wrong tries).
  await db.$transaction([
    db.signupCode.deleteMany({ where: { userId: user.id } }),
    db.signupCode.create({ data: { codeHash: hashSecret(code), userId: user.id, expiresAt: new Date(Date.now() + CODE_TTL_MS) } }),
  ]);
  await sendMail({ to: email, ...signupConfirmationMail({ code: formatSignupCode(code) }) });
}

interface CodeRow {
  code_hash: string;
  user_id: string;
  used_at: Date | null;
  confirmed_at: Date | null;
}

/**
 * Confirms a sign-up code and opens the first session. `{code}` alone is the contract's shape;
 * with `email` as well, a wrong code counts against that address's code, which dies after
 * `ARCA_RATE_LIMIT_CODE_TRIES` wrong tries (the check and the count are one statement, so
 * parallel guesses cannot slip past it). Every wrong code counts against the client's address.
 */
export async function confirmSignUp(input: Record<string, unknown>, client: Client = NO_CLIENT): Promise<{ sessionId: string }> {
  const notFoundError = () => notFound("Confirmation code not found.");
  await assertFailuresUnder(client);
  const code = typeof input.code === "string" ? normalizeSignupCode(input.code) : undefined;
  const codeHash = code ? hashSecret(code) : "";
  const maxTries = rateLimitConfig().codeTries || Number.MAX_SAFE_INTEGER;
  let row: CodeRow | undefined;
  if (typeof input.email === "string" && input.email.trim()) {
    const tried = await queryOne<CodeRow & { matched: boolean }>(
      sql`UPDATE signup_codes c
          SET failed_attempts = c.failed_attempts + CASE WHEN c.code_hash = ${codeHash} THEN 0 ELSE 1 END
          FROM users u
          WHERE u.email = ${normalizeEmail(input.email)} AND c.user_id = u.id
            AND c.expires_at > now() AND c.failed_attempts < ${maxTries}
          RETURNING c.code_hash, c.user_id, c.used_at, u.confirmed_at, c.code_hash = ${codeHash} AS matched`,
    );
    if (tried?.matched) row = tried;
  } else if (code) {
    row = await queryOne<CodeRow>(
      sql`SELECT c.code_hash, c.user_id, c.used_at, u.confirmed_at
          FROM signup_codes c JOIN users u ON u.id = c.user_id
          WHERE c.code_hash = ${codeHash} AND c.expires_at > now() AND c.failed_attempts < ${maxTries}`,
    );
  }
  if (!row) {
    await countFailure(client);
    throw notFoundError();
  }
  if (row.used_at || row.confirmed_at) throw conflict("User already exists.");
  const confirmed = await transaction(async (db) => {
    const used = await query(sql`UPDATE signup_codes SET used_at = now() WHERE code_hash = ${row.code_hash} AND used_at IS NULL RETURNING 1`, db);
    if (!used.length) return false;
    await query(sql`UPDATE users SET confirmed_at = now() WHERE id = ${row.user_id} AND confirmed_at IS NULL`, db);
    return true;
  });
  if (!confirmed) throw conflict("User already exists.");
  return { sessionId: await openSession(row.user_id) };
}

/**
 * Opens a session for the right password. Wrong passwords count per address and per client; an
 * address past its limit is refused even the right password until the window ends (that is the
 * point of the limit); a successful login clears the address's count.
 */
export async function logIn(input: Record<string, unknown>, client: Client = NO_CLIENT): Promise<{ sessionId: string; user: PublicUser }> {
  const wrong = unauthorized("Wrong credentials provided.");
  if (typeof input.email !== "string" || typeof input.password !== "string") throw wrong;
  const email = normalizeEmail(input.email);
  const addressLimit = guessingLimits.loginAddress(email);
  await assertFailuresUnder(client, [addressLimit]);
  const user = await prisma().user.findUnique({ where: { email } });
  const usable = Boolean(user?.confirmedAt);
  const matches = await verifyPassword(input.password, usable ? user!.passwordHash : UNUSABLE_HASH);
  if (!usable || !matches) {
    await countFailure(client, [addressLimit]);
    throw wrong;
  }
  await clearLimit(addressLimit.key);
  return { sessionId: await openSession(user!.id), user: publicUser(user!) };
}

export async function logOut(sessionId: string): Promise<void> {
  await whileNarrowingAccess(() => prisma().session.deleteMany({ where: { idHash: hashSecret(sessionId) } }));
}

export async function openSession(userId: string): Promise<string> {
  const sessionId = randomSecret(32);
  await prisma().session.create({
    data: { idHash: hashSecret(sessionId), userId, expiresAt: new Date(Date.now() + SESSION_TTL_MS) },
  });
  return sessionId;
}

/** The user behind a live session, or undefined. */
export async function userForSession(sessionId: string): Promise<PublicUser | undefined> {
  const db = prisma();
  const session = await db.session.findUnique({ where: { idHash: hashSecret(sessionId) } });
  if (!session || session.expiresAt < new Date()) return undefined;
  const user = await db.user.findUnique({ where: { id: session.userId } });
  return user?.confirmedAt ? publicUser(user) : undefined;
}

export async function getUser(userId: string): Promise<PublicUser> {
  const user = await prisma().user.findUnique({ where: { id: userId } });
  if (!user) throw notFound("User not found.");
  return publicUser(user);
}

/**
 * PATCH of the account. A new password ends the account's other API sessions (the one making the
 * change, `keepSessionId`, goes on): whoever held an old session no longer holds the account.
 */
export async function updateUser(userId: string, patch: Record<string, unknown>, keepSessionId?: string): Promise<PublicUser> {
  const data: { name?: string; passwordHash?: string } = {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === "name") {
      data.name = requireUserName(value);
    } else if (key === "password") {
      data.passwordHash = await hashPassword(requirePassword(value));
    } else if (key !== "_id" && key !== "email") {
      throw validationError("Validation error", [{ property: key, message: "is not a user property" }]);
    }
  }
  const user = await prisma().user.update({ where: { id: userId }, data });
  if (data.passwordHash)
    await whileNarrowingAccess(() =>
      prisma().session.deleteMany({ where: { userId, ...(keepSessionId === undefined ? {} : { NOT: { idHash: hashSecret(keepSessionId) } }) } }),
    );
  return publicUser(user);
}

/**
 * Creates a confirmed user at once (operator CLI, ARCA_ADMIN_EMAIL). Existing: password reset,
 * which ends the account's sessions when the password changes (a reset after a compromise must
 * lock the old sessions out, as a password change does); the same password keeps them, so the
 * admin configured at every start stays signed in.
 */
export async function ensureConfirmedUser(emailInput: string, password: string): Promise<PublicUser> {
  const email = requireEmail(emailInput);
  requirePassword(password);
  const existing = await prisma().user.findUnique({ where: { email } });
  const changed = !existing || !(await verifyPassword(password, existing.passwordHash));
  const passwordHash = changed ? await hashPassword(password) : existing.passwordHash;
  const user = await prisma().user.upsert({
    where: { email },
    create: { id: generateId(), email, passwordHash, confirmedAt: new Date() },
    update: { passwordHash, confirmedAt: existing?.confirmedAt ?? new Date() },
  });
  if (existing && changed) await whileNarrowingAccess(() => prisma().session.deleteMany({ where: { userId: user.id } }));
  return publicUser(user);
}

export async function findUserByEmail(email: string): Promise<PublicUser | undefined> {
  const user = await prisma().user.findUnique({ where: { email: normalizeEmail(email) } });
  return user?.confirmedAt ? publicUser(user) : undefined;
}

function publicUser(user: { id: string; email: string; name: string }): PublicUser {
  return { _id: user.id, email: user.email, name: user.name };
}

function requireEmail(value: unknown): string {
  if (typeof value !== "string" || !isValidEmail(value))
    throw validationError("Validation error", [{ property: "email", message: "Enter a valid e-mail address" }]);
  return normalizeEmail(value);
}

/** A person's name: text of at most 200 characters (422 otherwise, never cut short in silence). */
export function requireUserName(value: unknown): string {
  if (typeof value !== "string") throw validationError("Validation error", [{ property: "name", message: "must be a string" }]);
  if (value.length > 200) throw validationError("Validation error", [{ property: "name", message: "must be at most 200 characters" }]);
  return value;
}

function requirePassword(value: unknown): string {
  if (typeof value !== "string" || value.length < MIN_PASSWORD || value.length > 1024)
    throw validationError("Validation error", [
      { property: "password", message: `Password must be ${MIN_PASSWORD} to 1024 characters` },
    ]);
  return value;
}
