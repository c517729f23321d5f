import { createHash, randomBytes } from "node:crypto";

/** A random secret of `bytes` bytes (>= 16 gives >= 128 bits), URL-safe. */
export function randomSecret(bytes = 24): string {
  return randomBytes(bytes).toString("base64url");
}

/**
 * Tokens, session ids, invitation links and codes are high-entropy (or short-lived and rate
 * bounded), so a fast hash is enough to make a stolen database useless without the secrets.
 */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

const processTag = randomBytes(5).toString("hex");
let counter = randomBytes(3).readUIntBE(0, 3);

/**
 * Time-ordered 24-hex identifiers shaped like MongoDB's ObjectId: 4 bytes of seconds, 5 random
 * bytes per process, a 3-byte counter, so ids from one process sort in creation order.
 */
export function generateId(): string {
  const seconds = Math.floor(Date.now() / 1000).toString(16).padStart(8, "0");
  counter = (counter + 1) % 0x1000000;
  return seconds + processTag + counter.toString(16).padStart(6, "0");
}
