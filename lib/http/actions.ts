import type { Context, Handler } from "hono";
import { badRequest } from "../errors";
import type { ApiEnv } from "./env";

/**
 * `POST` with `X-Action: <verb>` runs a verb on a resource (CONTRACT §1). A POST without the
 * header goes to `create`; an unknown verb is a 400 naming it.
 */
export function withActions(
  verbs: Record<string, Handler<ApiEnv>>,
  create?: Handler<ApiEnv>,
): Handler<ApiEnv> {
  const table = new Map(Object.entries(verbs).map(([verb, handler]) => [verb.toLowerCase(), handler]));
  return (c: Context<ApiEnv>, next) => {
    const verb = c.req.header("x-action")?.trim().toLowerCase();
    if (!verb) {
      if (create) return create(c, next);
      throw badRequest("X-Action header required");
    }
    const handler = table.get(verb);
    if (!handler) throw badRequest(`Unknown action: ${verb}`);
    return handler(c, next);
  };
}
