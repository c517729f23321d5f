import type { Context } from "hono";
import { can } from "../auth/can";
import type { Action, Allow } from "../auth/principal";
import { createToken, deleteToken, getToken, listTokens, tokenIdOf, updateToken } from "../auth/tokens";
import { forbidden } from "../errors";
import { withActions } from "../http/actions";
import { deleteMatching } from "../http/action-filter";
import { mergePatch } from "../documents/merge-patch";
import { patchModeOf } from "../documents/patch-document";
import type { ApiEnv } from "../http/env";
import { pathParam, type ProjectRoutes } from "../http/project-routes";
import { readJsonObject } from "../http/json-body";
import { listInMemory } from "../lists/list-in-memory";
import { readListQuery } from "../lists/list-query";
import { pageOf } from "../lists/page";
import { projectFields } from "../lists/project-fields";
import { clientRequestUrl } from "../http/request-context";

/**
 * Project tokens as the system collection `_tokens` (CONTRACT §9).
 *   GET    /collections/_tokens/documents/                  list
 *   POST   /collections/_tokens/documents/  X-Action: find  list with a body
 *   POST   /collections/_tokens/documents/                  create (answer carries `token` once)
 *   GET    /collections/_tokens/documents/:id/              read
 *   POST   /collections/_tokens/documents/:id/              create with that id
 *   PUT    /collections/_tokens/documents/:id/              save
 *   PATCH  /collections/_tokens/documents/:id/              update
 *   DELETE /collections/_tokens/documents/:id/              revoke
 * `:id` is a token's `_id` or its secret (matched by hash); answers carry the `:id` given.
 */
const BASE = "/collections/_tokens/documents";

export function bindTokensApi(app: ProjectRoutes): void {
  app.get(BASE, (c) => list(c, {}));
  app.post(
    BASE,
    withActions({
      find: async (c) => list(c, await readJsonObject(c)),
      // Delete by criteria (CONTRACT §3): every token the filter selects is revoked.
      delete: async (c) => {
        allow(c, "delete");
        const projectId = c.get("project")._id;
        return deleteMatching(c, (await listTokens(projectId)) as unknown as Record<string, unknown>[], async (matching) => {
          for (const token of matching) await deleteToken(projectId, token._id as string);
        }, () => allow(c, "read"));
      },
    }, async (c) => {
      allow(c, "write");
      return c.json(await createToken(c.get("project")._id, await readJsonObject(c), undefined, grantorOf(c)), 201);
    }),
  );
  app.get(`${BASE}/:id`, async (c) => {
    allow(c, "read", pathParam(c, "id"));
    const token = await getToken(c.get("project")._id, pathParam(c, "id"));
    return c.json(projectFields(token, readListQuery(new URL(c.req.url).searchParams)));
  });
  // No verb applies to one token: an X-Action is refused (400, 403 for a list verb), never a create.
  app.post(`${BASE}/:id`, withActions({}, async (c) => {
    allow(c, "write", pathParam(c, "id"));
    return c.json(await createToken(c.get("project")._id, await readJsonObject(c), pathParam(c, "id"), grantorOf(c)), 201);
  }));
  app.put(`${BASE}/:id`, async (c) => save(c, pathParam(c, "id"), await readJsonObject(c)));
  // PUT without an id in the path (CONTRACT §5): saves the body's `_id`, or creates one.
  app.put(BASE, async (c) => {
    const body = await readJsonObject(c);
    if (typeof body._id === "string") return save(c, body._id, body);
    allow(c, "write");
    return c.json(await createToken(c.get("project")._id, body, undefined, grantorOf(c)), 201);
  });
  app.patch(`${BASE}/:id`, async (c) => {
    const projectId = c.get("project")._id;
    const id = pathParam(c, "id");
    allow(c, "update", id);
    const body = await readJsonObject(c);
    if (patchModeOf(c.req.header("content-type")) === "merge") {
      // RFC 7396 on the token as shown, saved whole: a key the patch removes takes its default.
      const merged = mergePatch(await getToken(projectId, id), body) as Record<string, unknown>;
      return c.json(await updateToken(projectId, id, merged, "replace", grantorOf(c)));
    }
    return c.json(await updateToken(projectId, id, body, "merge", grantorOf(c)));
  });
  app.delete(`${BASE}/:id`, async (c) => {
    allow(c, "delete", pathParam(c, "id"));
    await deleteToken(c.get("project")._id, pathParam(c, "id"));
    return c.body(null, 204);
  });
}

/** A token's own rights bound what it grants; a person managing tokens (owner, admin) is not bound. */
function grantorOf(c: Context<ApiEnv>): Allow | undefined {
  const principal = c.get("principal");
  return principal.kind === "token" ? principal.allow : undefined;
}

async function save(c: Context<ApiEnv>, id: string, body: Record<string, unknown>) {
  const projectId = c.get("project")._id;
  if (!(await tokenIdOf(projectId, id))) {
    allow(c, "write", id);
    return c.json(await createToken(projectId, body, id, grantorOf(c)), 201);
  }
  allow(c, "update", id);
  return c.json(await updateToken(projectId, id, body, "replace", grantorOf(c)));
}

async function list(c: Context<ApiEnv>, body: Record<string, unknown>) {
  allow(c, "read");
  const query = readListQuery(new URL(c.req.url).searchParams, body);
  const tokens = (await listTokens(c.get("project")._id)) as unknown as Record<string, unknown>[];
  const { items, total } = listInMemory(tokens, query, ["_id", "name"]);
  return c.json(pageOf(items, total, query, clientRequestUrl(c)));
}

function allow(c: Context<ApiEnv>, action: Action, documentId?: string): void {
  if (!can(c.get("principal"), action, { collection: "_tokens", documentId, manage: true }))
    throw forbidden("Not allowed to manage tokens");
}
