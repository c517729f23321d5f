import type { Context, Handler } from "hono";
import { badRequest, forbidden } from "../errors";
import type { ApiEnv } from "./env";

/**
 * `POST` with `X-Action: <verb>` runs a verb on a resource (CONTRACT §1). A POST without the
 * header goes to `create`; an unknown verb is a 400 naming it.
 */
const LIST_VERBS = new Set(["find", "update", "upsert", "delete"]);

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
    // A list verb this resource does not take (a read-only collection's delete, a token's update)
    // is known but not allowed; anything else is not a verb at all.
    if (!handler && LIST_VERBS.has(verb)) throw forbidden(`Action ${verb} is not allowed here`);
    if (!handler) throw badRequest(`Unknown action: ${verb}`);
    return handler(c, next);
  };
}

/** For a route no verb applies to, written plainly: an X-Action is refused as `withActions({})` refuses it. */
export function refuseActions(c: Context<ApiEnv>): void {
  const verb = c.req.header("x-action")?.trim().toLowerCase();
  if (!verb) return;
  if (LIST_VERBS.has(verb)) throw forbidden(`Action ${verb} is not allowed here`);
  throw badRequest(`Unknown action: ${verb}`);
}
