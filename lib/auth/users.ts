import { randomInt } from "node:crypto";
import { conflict, notFound, unauthorized, validationError } from "../errors";
import { prisma } from "../db/pool";
import { sendMail } from "../mail/send-mail";
import { signupConfirmationMail } from "../mail/templates";
import { whileNarrowingAccess } from "./auth-cache";
import { hashPassword, verifyPassword } from "./password";
import { generateId, hashSecret, randomSecret } from "./secrets";
import { isValidEmail, normalizeEmail } from "./email";

/** Accounts: sign-up with a mailed code, confirmation, sessions (CONTRACT §2). */
export interface PublicUser {
  _id: string;
  email: string;
  name: string;
}

const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
const CODE_TTL_MS = 24 * 3600 * 1000;
const MIN_PASSWORD = 8;

export async function signUp(input: Record<string, unknown>): Promise<void> {
  const email = requireEmail(input.email);
  const password = requirePassword(input.password);
  const db = prisma();
  const existing = await db.user.findUnique({ where: { email } });
  if (existing?.confirmedAt) throw conflict("User already exists.");
  const passwordHash = await hashPassword(password);
  const name = typeof input.name === "string" ? input.name.slice(0, 200) : "";
  // An unconfirmed account may sign up again (a lost code); the newest password and code win.
  const user = existing
    ? await db.user.update({ where: { id: existing.id }, data: { passwordHash, name } })
    : await db.user.create({ data: { id: generateId(), email, passwordHash, name } });
  const code = confirmationCode();
  await db.signupCode.create({
    data: { codeHash: hashSecret(code), userId: user.id, expiresAt: new Date(Date.now() + CODE_TTL_MS) },
  });
  await sendMail({ to: email, ...signupConfirmationMail({ code }) });
}

/** Confirms a sign-up code and opens the first session. */
export async function confirmSignUp(input: Record<string, unknown>): Promise<{ sessionId: string }> {
  if (typeof input.code !== "string" || !input.code.trim()) throw notFound("Confirmation code not found.");
  const db = prisma();
  const record = await db.signupCode.findUnique({ where: { codeHash: hashSecret(input.code.trim()) } });
  if (!record || record.expiresAt < new Date()) throw notFound("Confirmation code not found.");
  const user = await db.user.findUnique({ where: { id: record.userId } });
  if (!user) throw notFound("Confirmation code not found.");
  if (record.usedAt || user.confirmedAt) throw conflict("User already exists.");
  await db.$transaction([
    db.signupCode.update({ where: { codeHash: record.codeHash }, data: { usedAt: new Date() } }),
    db.user.update({ where: { id: user.id }, data: { confirmedAt: new Date() } }),
  ]);
  return { sessionId: await openSession(user.id) };
}

export async function logIn(input: Record<string, unknown>): Promise<{ sessionId: string; user: PublicUser }> {
  const wrong = unauthorized("Wrong credentials provided.");
  if (typeof input.email !== "string" || typeof input.password !== "string") throw wrong;
  const user = await prisma().user.findUnique({ where: { email: normalizeEmail(input.email) } });
  if (!user || !user.confirmedAt || !(await verifyPassword(input.password, user.passwordHash))) throw wrong;
  return { sessionId: await openSession(user.id), user: publicUser(user) };
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

export async function updateUser(userId: string, patch: Record<string, unknown>): Promise<PublicUser> {
  const data: { name?: string; passwordHash?: string } = {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === "name") {
      if (typeof value !== "string") throw validationError("Validation error", [{ property: "name", message: "must be a string" }]);
      data.name = value.slice(0, 200);
    } else if (key === "password") {
      data.passwordHash = await hashPassword(requirePassword(value));
    } else if (key !== "_id" && key !== "email") {
      throw validationError("Validation error", [{ property: key, message: "is not a user property" }]);
    }
  }
  const user = await prisma().user.update({ where: { id: userId }, data });
  return publicUser(user);
}

/** Creates a confirmed user at once (operator CLI, ARCA_ADMIN_EMAIL). Existing: password reset. */
export async function ensureConfirmedUser(emailInput: string, password: string): Promise<PublicUser> {
  const email = requireEmail(emailInput);
  const passwordHash = await hashPassword(requirePassword(password));
  const user = await prisma().user.upsert({
    where: { email },
    create: { id: generateId(), email, passwordHash, confirmedAt: new Date() },
    update: { passwordHash, confirmedAt: new Date() },
  });
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

function requirePassword(value: unknown): string {
  if (typeof value !== "string" || value.length < MIN_PASSWORD || value.length > 1024)
    throw validationError("Validation error", [
      { property: "password", message: `Password must be ${MIN_PASSWORD} to 1024 characters` },
    ]);
  return value;
}

/** Eight digits: typed by a person from an e-mail; one-time and expiring. */
function confirmationCode(): string {
  return String(randomInt(100_000_000)).padStart(8, "0");
}
