import type { Hono } from "hono";
import { authenticateUser } from "../auth/authenticate";
import { confirmSignUp, getUser, logIn, logOut, signUp, updateUser } from "../auth/users";
import { withActions } from "../http/actions";
import type { ApiEnv } from "../http/env";
import { readJsonObject } from "../http/json-body";

/**
 * Accounts on the bare host (CONTRACT §2).
 *   POST  /user/                      sign up (mails a confirmation code)
 *   POST  /user/  X-Action: confirm   confirm the code (`{code}`, or `{code, email}`), open a session
 *   POST  /user/  X-Action: login     open a session
 *   POST  /user/  X-Action: logout    end the session (204, empty body)
 * Sign-up, confirm and login count against the guessing limits (lib/rate-limits). Tokens are
 * no credential here (authenticateUser reads sessions only): 401.
 *   GET   /user/                      the signed-in user
 *   PATCH /user/                      edit name or password
 */
export function bindUserApi(app: Hono<ApiEnv>): void {
  app.post(
    "/user",
    withActions(
      {
        confirm: async (c) => c.json(await confirmSignUp(await readJsonObject(c), c.get("client"))),
        login: async (c) => {
          const { sessionId } = await logIn(await readJsonObject(c), c.get("client"));
          return c.json({ sessionId });
        },
        logout: async (c) => {
          const { sessionId } = await authenticateUser(c.get("credentials"));
          await logOut(sessionId);
          return c.body(null, 204);
        },
      },
      async (c) => {
        await signUp(await readJsonObject(c), c.get("client"));
        return c.json({ message: "Check your email for confirmation code" }, 201);
      },
    ),
  );

  app.get("/user", async (c) => {
    const { user } = await authenticateUser(c.get("credentials"));
    return c.json(await getUser(user._id));
  });

  app.patch("/user", async (c) => {
    const { user, sessionId } = await authenticateUser(c.get("credentials"));
    return c.json(await updateUser(user._id, await readJsonObject(c), sessionId));
  });
}
