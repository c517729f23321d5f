import type { Context } from "hono";
import { can } from "../auth/can";
import { normalizeEmail } from "../auth/email";
import type { Action } from "../auth/principal";
import { forbidden } from "../errors";
import { withActions } from "../http/actions";
import { deleteMatching } from "../http/action-filter";
import type { ApiEnv } from "../http/env";
import { readJsonObject } from "../http/json-body";
import { pathParam, type ProjectRoutes } from "../http/project-routes";
import { listInMemory } from "../lists/list-in-memory";
import { readListQuery } from "../lists/list-query";
import { pageOf } from "../lists/page";
import { projectFields } from "../lists/project-fields";
import { getMember, inviteMember, listMembers, memberExists, removeMember, updateMember } from "../members/members";
import { clientRequestUrl } from "../http/request-context";

/**
 * The project's members as the system collection `_users` (CONTRACT §10, docs/members.md).
 *   GET    /collections/_users/documents/                  list
 *   POST   /collections/_users/documents/  X-Action: find  list with a body
 *   POST   /collections/_users/documents/                  invite `{ _id: <email>, role? }`
 *   GET    /collections/_users/documents/:email/           read
 *   POST   /collections/_users/documents/:email/           invite that address
 *   PUT    /collections/_users/documents/:email/           invite (201) or save role, is_active (200)
 *   PATCH  /collections/_users/documents/:email/           change role, is_active
 *   DELETE /collections/_users/documents/:email/           remove (access ends at once)
 */
const BASE = "/collections/_users/documents";

export function bindMembersApi(app: ProjectRoutes): void {
  app.get(BASE, (c) => list(c, {}));
  app.post(
    BASE,
    withActions({
      find: async (c) => list(c, await readJsonObject(c)),
      // Delete by criteria (CONTRACT §3): the members the filter selects are removed; a filter
      // that selects the owner removes nobody (403).
      delete: async (c) => {
        allow(c, "delete");
        const projectId = c.get("project")._id;
        return deleteMatching(c, (await listMembers(projectId)) as unknown as Record<string, unknown>[], async (matching) => {
          if (matching.some((m) => m.role === "owner")) throw forbidden("The owner cannot be removed.");
          for (const member of matching) await removeMember(projectId, member._id as string, c.get("principal"));
        }, () => allow(c, "read"));
      },
    }, async (c) => {
      allow(c, "write");
      return invite(c, await readJsonObject(c));
    }),
  );
  app.get(`${BASE}/:id`, async (c) => {
    allow(c, "read", pathParam(c, "id"));
    const member = await getMember(c.get("project")._id, pathParam(c, "id"));
    return c.json(projectFields(member, readListQuery(new URL(c.req.url).searchParams)));
  });
  // No verb applies to one member: an X-Action is refused (400, 403 for a list verb), never an invitation.
  app.post(`${BASE}/:id`, withActions({}, async (c) => {
    allow(c, "write", pathParam(c, "id"));
    return invite(c, await readJsonObject(c), pathParam(c, "id"));
  }));
  // PUT without an id in the path (CONTRACT §5): saves the body's `_id` (an e-mail address).
  app.put(BASE, async (c) => {
    const body = await readJsonObject(c);
    if (typeof body._id !== "string") {
      allow(c, "write");
      return invite(c, body);
    }
    return save(c, body._id, body);
  });
  app.put(`${BASE}/:id`, async (c) => save(c, pathParam(c, "id"), await readJsonObject(c)));
  app.patch(`${BASE}/:id`, async (c) => {
    allow(c, "update", pathParam(c, "id"));
    return c.json(await updateMember(c.get("project")._id, pathParam(c, "id"), await readJsonObject(c), "merge"));
  });
  app.delete(`${BASE}/:id`, async (c) => {
    const id = pathParam(c, "id");
    const principal = c.get("principal");
    // Anyone may leave a project; removing someone else is administration.
    const leaving = principal.kind === "user" && principal.email === normalizeEmail(id);
    if (!leaving) allow(c, "delete", id);
    await removeMember(c.get("project")._id, id, principal);
    return c.body(null, 204);
  });
}

/** PUT: invites `id` (201) or saves the member's role and activity (200). */
async function save(c: Context<ApiEnv>, id: string, body: Record<string, unknown>) {
  if (!(await memberExists(c.get("project")._id, id))) {
    allow(c, "write", id);
    return invite(c, body, id);
  }
  allow(c, "update", id);
  return c.json(await updateMember(c.get("project")._id, id, body, "replace"));
}

async function list(c: Context<ApiEnv>, body: Record<string, unknown>) {
  allow(c, "read");
  const query = readListQuery(new URL(c.req.url).searchParams, body);
  const members = (await listMembers(c.get("project")._id)) as unknown as Record<string, unknown>[];
  const { items, total } = listInMemory(members, query, ["_id"]);
  return c.json(pageOf(items, total, query, clientRequestUrl(c)));
}

async function invite(c: Context<ApiEnv>, body: Record<string, unknown>, email?: string) {
  const project = c.get("project");
  const { member, created } = await inviteMember(project, c.get("principal"), body, email ?? body._id ?? body.email);
  return c.json(member, created ? 201 : 200);
}

function allow(c: Context<ApiEnv>, action: Action, documentId?: string): void {
  const principal = c.get("principal");
  if (!can(principal, action, { collection: "_users", documentId, manage: true })) throw forbidden("Not allowed to manage members");
  // A member reads every collection and an admin manages the project: a token short of
  // `allow.all` naming `_users` may list and remove members, never make or change one.
  if (principal.kind === "token" && !principal.allow.all && (action === "write" || action === "update"))
    throw forbidden("A token cannot grant more than it holds: inviting or changing members needs allow.all");
}
