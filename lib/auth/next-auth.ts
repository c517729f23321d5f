import NextAuth, { CredentialsSignin } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { AppError } from "../errors";
import { appSecret } from "./app-secret";
import { logIn, logOut } from "./users";

/**
 * The dashboard's sign-in: next-auth (JWT sessions) over Arca's own accounts. The JWT carries
 * Arca's session id, which is what the API checks (lib/auth/dashboard-session.ts decodes the same
 * cookie), so signing out here ends the API session too.
 *
 * next-auth lives under `/auth`, not `/api/auth`: the custom server sends all of `/api/*` to the
 * Hono app. The config is built per request so `next build` needs neither the secret nor a database.
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

export const AUTH_BASE_PATH = "/auth";

export const { handlers, auth, signIn, signOut } = NextAuth(() => ({
  secret: appSecret(),
  basePath: AUTH_BASE_PATH,
  trustHost: true,
  session: { strategy: "jwt" },
  pages: { signIn: "/signin", error: "/signin" },
  providers: [
    Credentials({
      credentials: { email: { label: "E-mail", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials) {
        try {
          const { sessionId, user } = await logIn({ email: credentials.email, password: credentials.password });
          return { id: user._id, email: user.email, name: user.name || user.email, sessionId };
        } catch (error) {
          if (error instanceof AppError && error.status === 401) throw new CredentialsSignin();
          throw error;
        }
      },
    }),
  ],
  callbacks: {
    jwt({ token, user }) {
      if (user?.sessionId) token.sessionId = user.sessionId;
      return token;
    },
    // The session id stays inside the encrypted cookie: the browser's JavaScript never sees it.
    session({ session }) {
      return session;
    },
  },
  events: {
    async signOut(message) {
      const sessionId = "token" in message ? message.token?.sessionId : undefined;
      if (typeof sessionId === "string") await logOut(sessionId);
    },
  },
}));
