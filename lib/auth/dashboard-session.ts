import { decode } from "next-auth/jwt";
import { appSecret } from "./app-secret";

/**
 * The dashboard signs in through next-auth, whose JWT cookie carries Arca's own session id. The
 * API reads that cookie from the raw request (the fast door runs no next-auth code), then checks
 * the session in the database like any `SessionId`, so signing out or removal takes effect at once.
 */
export const SESSION_COOKIES = ["__Secure-authjs.session-token", "authjs.session-token"];

export async function sessionIdFromCookies(cookieHeader: string | undefined): Promise<string | undefined> {
  if (!cookieHeader) return undefined;
  const cookies = parseCookies(cookieHeader);
  for (const name of SESSION_COOKIES) {
    const token = cookies.get(name);
    if (!token) continue;
    try {
      const payload = await decode({ token, secret: appSecret(), salt: name });
      if (payload && typeof payload.sessionId === "string") return payload.sessionId;
    } catch {
      // A stale or forged cookie is simply no credential.
    }
  }
  return undefined;
}

function parseCookies(header: string): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    const name = part.slice(0, index).trim();
    if (!cookies.has(name)) cookies.set(name, decodeCookieValue(part.slice(index + 1).trim()));
  }
  return cookies;
}

/** A malformed escape (`a=%%%`) is kept as written: someone else's cookie must not break our calls. */
function decodeCookieValue(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
