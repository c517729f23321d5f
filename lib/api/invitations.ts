import type { Hono } from "hono";
import { authenticateUser } from "../auth/authenticate";
import { withActions } from "../http/actions";
import type { ApiEnv } from "../http/env";
import { readJsonObject } from "../http/json-body";
import { pathParam } from "../http/project-routes";
import { acceptInvitation, readInvitation, resendInvitation } from "../members/invitations";

/**
 * Invitation links on the bare host (CONTRACT §10, docs/members.md). The token is the credential;
 * unknown ones count against the client's guessing limit (429 past it).
 *   GET  /invitations/:token/                    `{ project: {_id, name}, email, state, expires_at, has_account }`
 *   POST /invitations/:token/  X-Action: accept  join: with a session of the invited address, or
 *                                                `{ password, name? }` creating the account (answers `sessionId`)
 *   POST /invitations/:token/  X-Action: resend  mail a fresh link to the invited address
 */
export function bindInvitationsApi(app: Hono<ApiEnv>): void {
  app.get("/invitations/:token", async (c) => c.json(await readInvitation(pathParam(c, "token"), c.get("client"))));
  app.post(
    "/invitations/:token",
    withActions({
      accept: async (c) => {
        const body = await readJsonObject(c);
        const user = c.get("credentials")?.kind === "session" ? (await authenticateUser(c.get("credentials"))).user : undefined;
        return c.json(await acceptInvitation(pathParam(c, "token"), { user, password: body.password, name: body.name }, c.get("client")));
      },
      resend: async (c) => {
        const { email } = await resendInvitation(pathParam(c, "token"), c.get("client"));
        return c.json({ message: `A new invitation link was sent to ${email}.` });
      },
    }),
  );
}
