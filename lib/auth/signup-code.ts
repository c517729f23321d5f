import { randomInt } from "node:crypto";

/**
 * Sign-up confirmation codes: 12 characters of Crockford's base32 (no I, L, O, U), 60 random
 * bits, so guessing one is hopeless even before the rate limits. Mailed grouped as
 * `XXXX-XXXX-XXXX`; accepted with or without dashes or spaces, in either case, and with the
 * letters people confuse with digits (I, L -> 1; O -> 0) read as those digits.
 */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
export const CODE_LENGTH = 12;

export function newSignupCode(): string {
  let code = "";
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/** `ABCD-EFGH-JKMN`: how the mail shows a code. */
export function formatSignupCode(code: string): string {
  return code.match(/.{1,4}/g)!.join("-");
}

/** The canonical form of a typed code, or undefined when it cannot be one. */
export function normalizeSignupCode(input: string): string | undefined {
  const code = input
    .replace(/[\s-]+/g, "")
    .toUpperCase()
    .replace(/[IL]/g, "1")
    .replace(/O/g, "0");
  if (code.length !== CODE_LENGTH) return undefined;
  for (const char of code) if (!ALPHABET.includes(char)) return undefined;
  return code;
}
