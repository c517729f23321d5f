import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { sessionIdFromCookies } from "./dashboard-session";
import { signInPath } from "./safe-redirect";
import { auth } from "./next-auth";
import { userForSession, type PublicUser } from "./users";

/**
 * The signed-in dashboard user for a server component, checked the way the API checks it: a valid
 * next-auth cookie AND a live Arca session behind it (a session ended elsewhere signs out here too).
 */
export async function currentUser(): Promise<PublicUser | undefined> {
  const session = await auth();
  if (!session) return undefined;
  const sessionId = await sessionIdFromCookies((await headers()).get("cookie") ?? undefined);
  return sessionId ? userForSession(sessionId) : undefined;
}

/**
 * For protected pages and layouts: the user, or a redirect to the sign-in page that brings the
 * visitor back afterwards (the address comes from `proxy.ts`'s `x-arca-path` request header).
 */
export async function requireUser(): Promise<PublicUser> {
  const user = await currentUser();
  if (!user) redirect(signInPath((await headers()).get("x-arca-path")));
  return user;
}
