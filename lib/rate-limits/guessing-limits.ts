import { AppError, tooManyRequests } from "../errors";
import { assertUnderLimits, countAttempt, type Limit } from "./rate-limiter";
import { rateLimitConfig } from "./rate-limit-config";

/**
 * The limits on guessing (issue 17 item 3), as keys of the shared counters. `address` is the
 * client's network address (undefined when unknown: per-IP limits are skipped).
 */
export interface Client {
  address: string | undefined;
}

export const guessingLimits = {
  /** Wrong passwords for one account address. */
  loginAddress(email: string): Limit {
    const config = rateLimitConfig();
    return { key: `login:address:${email}`, max: config.loginFailuresPerAddress, windowMs: config.windowMs };
  },
  signUpAddress(email: string): Limit {
    const config = rateLimitConfig();
    return { key: `signup:address:${email}`, max: config.signUpsPerAddress, windowMs: config.windowMs };
  },
  signUpIp(client: Client): Limit[] {
    const config = rateLimitConfig();
    return client.address ? [{ key: `signup:ip:${client.address}`, max: config.signUpsPerIp, windowMs: config.windowMs }] : [];
  },
  /** Every failed guess from one network address: passwords, codes, invitation links, tokens, sessions. */
  failuresIp(client: Client): Limit[] {
    const config = rateLimitConfig();
    return client.address ? [{ key: `failures:ip:${client.address}`, max: config.failuresPerIp, windowMs: config.windowMs }] : [];
  },
};

/**
 * Addresses this process saw go past their failure limit, until their window ends: requests with
 * credentials from them answer 429 without touching the database (valid credentials included, so
 * a guess cannot be confirmed). Other processes learn it at their own next failure from there.
 */
const MAX_BLOCKED = 10_000;
const blocked = ((globalThis as { __arcaBlockedAddresses?: Map<string, number> }).__arcaBlockedAddresses ??= new Map());

export function assertAddressNotBlocked(client: Client): void {
  if (!client.address || blocked.size === 0) return;
  const until = blocked.get(client.address);
  if (until === undefined) return;
  const left = until - Date.now();
  if (left > 0) throw tooManyRequests(left / 1000);
  blocked.delete(client.address);
}

/** 429 when the client's failures are used up already (checked before a guess is even tried). */
export async function assertFailuresUnder(client: Client, extra: Limit[] = []): Promise<void> {
  assertAddressNotBlocked(client);
  await remembering(client, () => assertUnderLimits([...guessingLimits.failuresIp(client), ...extra]));
}

/** Counts one failed guess of the client (and of `extra` keys); 429 once past a limit. */
export async function countFailure(client: Client, extra: Limit[] = []): Promise<void> {
  await remembering(client, () => countAttempt([...guessingLimits.failuresIp(client), ...extra]));
}

async function remembering(client: Client, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    if (client.address && error instanceof AppError && error.status === 429 && (await failuresSpent(client))) {
      if (blocked.size >= MAX_BLOCKED) blocked.delete(blocked.keys().next().value!);
      blocked.set(client.address, Date.now() + (error.retryAfter ?? 1) * 1000);
    }
    throw error;
  }
}

/** Whether the per-IP failure limit (not only a per-account one) is what refused the client. */
async function failuresSpent(client: Client): Promise<boolean> {
  try {
    await assertUnderLimits(guessingLimits.failuresIp(client));
    return false;
  } catch {
    return true;
  }
}
