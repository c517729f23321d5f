"use server";

import { getUserProject } from "../projects/projects";
import { currentUser } from "./current-user";
import { tokenDates, type TokenDates } from "./token-dates";

/**
 * The tokens page's dates, as a dashboard-only server action (the `_tokens` API stays as the
 * contract fixes it). Checked like the page: a signed-in user with a live session who is an
 * active member of the project (else "You are not a member of this project."), then the same
 * read rule as the API's list of `_tokens`. Next.js refuses a server action whose Origin is not
 * this host, so another site cannot call it with the cookie.
 */
export async function readTokenDates(projectId: string): Promise<Record<string, TokenDates>> {
  const user = await currentUser();
  if (!user) throw new Error("Not authorized");
  const { role } = await getUserProject(user._id, String(projectId));
  return tokenDates(String(projectId), { kind: "user", userId: user._id, email: user.email, role });
}
