import { CredentialsSignin } from "@auth/core/errors";
import Credentials from "@auth/core/providers/credentials";
import type { NextAuthConfig } from "next-auth";
import { AppError } from "../errors";
import { clientAddress } from "../rate-limits/client-address";
import { rateLimitConfig } from "../rate-limits/rate-limit-config";
import { appSecret } from "./app-secret";
import { logIn, logOut } from "./users";

/**
 * The dashboard's next-auth configuration (lib/auth/next-auth.ts wires it into Next). Apart so
 * that tests can run it through @auth/core without Next. Cookies are next-auth's defaults, which
 * CONTRACT §1 asks for: `HttpOnly; SameSite=Lax`, plus `Secure` (and the `__Secure-` prefix) when
 * the request came over HTTPS (tested in lib/api/tests/dashboard-cookie.test.ts).
 */
export const AUTH_BASE_PATH = "/auth";

/** A locked-out address or a sign-in flood: the form says so instead of "wrong credentials". */
export class TooManyAttempts extends CredentialsSignin {
  code = "too_many_attempts";
}

export function authConfig(): NextAuthConfig {
  return {
    secret: appSecret(),
    basePath: AUTH_BASE_PATH,
    trustHost: true,
    session: { strategy: "jwt" },
    pages: { signIn: "/signin", error: "/signin" },
    providers: [
      Credentials({
        credentials: { email: { label: "E-mail", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, request) {
          try {
            // Next gives no socket address; only a trusted proxy's X-Forwarded-For names the client.
            const address = clientAddress({
              socketAddress: undefined,
              forwardedFor: request.headers.get("x-forwarded-for") ?? undefined,
              trustProxy: rateLimitConfig().trustProxy,
            });
            const { sessionId, user } = await logIn({ email: credentials.email, password: credentials.password }, { address });
            return { id: user._id, email: user.email, name: user.name || user.email, sessionId };
          } catch (error) {
            if (error instanceof AppError && error.status === 401) throw new CredentialsSignin();
            if (error instanceof AppError && (error.status === 429 || error.status === 503)) throw new TooManyAttempts();
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
  };
}
