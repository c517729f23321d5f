/**
 * Guessing limits (CONTRACT §11: 429 with Retry-After). Every limit counts within one window
 * (`ARCA_RATE_LIMIT_WINDOW_SECONDS`, default 15 minutes) and 0 switches a limit off. Read from
 * the environment at each use (a few numbers), so tests can narrow them per server.
 */
export interface RateLimitConfig {
  windowMs: number;
  /** Wrong passwords per address: then even the right one is refused until the window ends. */
  loginFailuresPerAddress: number;
  /** Sign-ups (each mails a code) per address. */
  signUpsPerAddress: number;
  /** Sign-ups per client address. */
  signUpsPerIp: number;
  /** Failed guesses per client address: passwords, codes, invitation links, tokens, sessions. */
  failuresPerIp: number;
  /** Wrong codes sent with `email` before that address's code is void. */
  codeTries: number;
  /** Honour X-Forwarded-For (its last address, the proxy's) as the client address: only behind such a proxy. */
  trustProxy: boolean;
}

export const RATE_LIMIT_DEFAULTS = {
  ARCA_RATE_LIMIT_WINDOW_SECONDS: 900,
  ARCA_RATE_LIMIT_LOGIN_PER_ADDRESS: 10,
  ARCA_RATE_LIMIT_SIGNUP_PER_ADDRESS: 5,
  ARCA_RATE_LIMIT_SIGNUP_PER_IP: 20,
  ARCA_RATE_LIMIT_FAILURES_PER_IP: 100,
  ARCA_RATE_LIMIT_CODE_TRIES: 5,
} as const;

export function rateLimitConfig(env: NodeJS.ProcessEnv = process.env): RateLimitConfig {
  const read = (name: keyof typeof RATE_LIMIT_DEFAULTS) => wholeNumber(env[name], RATE_LIMIT_DEFAULTS[name]);
  return {
    windowMs: Math.max(1, read("ARCA_RATE_LIMIT_WINDOW_SECONDS")) * 1000,
    loginFailuresPerAddress: read("ARCA_RATE_LIMIT_LOGIN_PER_ADDRESS"),
    signUpsPerAddress: read("ARCA_RATE_LIMIT_SIGNUP_PER_ADDRESS"),
    signUpsPerIp: read("ARCA_RATE_LIMIT_SIGNUP_PER_IP"),
    failuresPerIp: read("ARCA_RATE_LIMIT_FAILURES_PER_IP"),
    codeTries: read("ARCA_RATE_LIMIT_CODE_TRIES"),
    trustProxy: env.ARCA_TRUST_PROXY === "true",
  };
}

function wholeNumber(value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : fallback;
}
