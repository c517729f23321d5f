import NextAuth from "next-auth";
import { authConfig } from "./auth-config";

export { AUTH_BASE_PATH } from "./auth-config";

/**
 * The dashboard's sign-in: next-auth (JWT sessions) over Arca's own accounts. The JWT carries
 * Arca's session id, which is what the API checks (lib/auth/dashboard-session.ts decodes the same
 * cookie), so signing out here ends the API session too.
 *
 * next-auth lives under `/auth`, not `/api/auth`: the custom server sends all of `/api/*` to the
 * Hono app. The config (lib/auth/auth-config.ts) is built per request so `next build` needs
 * neither the secret nor a database.
 */
declare module "next-auth" {
  interface User {
    sessionId?: string;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    sessionId?: string;
  }
}

export const { handlers, auth, signIn, signOut } = NextAuth(() => authConfig());
