import type { Context, Hono } from "hono";
import { authenticateUser } from "../auth/authenticate";
import { badRequest, validationError } from "../errors";
import { refuseActions, withActions } from "../http/actions";
import type { ApiEnv } from "../http/env";
import { readJsonObject } from "../http/json-body";
import { pathParam } from "../http/project-routes";
import { listInMemory } from "../lists/list-in-memory";
import { readListQuery } from "../lists/list-query";
import { pageOf } from "../lists/page";
import { projectFields } from "../lists/project-fields";
import {
  createProject,
  deleteProject,
  getUserProject,
  listUserProjects,
  patchProject,
  saveProject,
} from "../projects/projects";
import { checkTransfer, transferProject } from "../projects/transfer-project";
import { clientRequestUrl } from "../http/request-context";

/**
 * A user's projects on the bare host (CONTRACT §2).
 *   GET    /user/projects/                    list (filter, text over _id and name)
 *   POST   /user/projects/  X-Action: find    list with a body
 *   POST   /user/projects/                    create (body carries _id)
 *   GET    /user/projects/:id/                read (fields, fields_exclude)
 *   POST   /user/projects/:id/                create with that id
 *   PUT    /user/projects/:id/                save: 201 created, 200 replaced
 *   PATCH  /user/projects/:id/                update; `{owner: <email>}` transfers it (owner only)
 *   DELETE /user/projects/:id/                delete with its data and files (owner)
 */
export function bindProjectsApi(app: Hono<ApiEnv>): void {
  app.get("/user/projects", (c) => listProjects(c, {}));
  app.post(
    "/user/projects",
    withActions({ find: async (c) => listProjects(c, await readJsonObject(c)) }, async (c) => {
      const { user } = await authenticateUser(c.get("credentials"));
      const body = await readJsonObject(c);
      if (body._id === undefined) throw badRequest("_id is required");
      if (typeof body._id !== "string") throw validationError("Validation error", [{ property: "_id", message: "must be a string" }]);
      return c.json(await createProject(user, body._id, body), 201);
    }),
  );

  app.get("/user/projects/:id", async (c) => {
    const { user } = await authenticateUser(c.get("credentials"));
    const { project } = await getUserProject(user._id, pathParam(c, "id"));
    return c.json(projectFields(project, readListQuery(new URL(c.req.url).searchParams)));
  });
  // No verb applies to one project: an X-Action is refused (400, 403 for a list verb), never a create.
  // Credentials first (401), then the verb: an X-Action is no way to learn anything without them.
  app.post("/user/projects/:id", async (c) => {
    const { user } = await authenticateUser(c.get("credentials"));
    refuseActions(c);
    return c.json(await createProject(user, pathParam(c, "id"), await readJsonObject(c)), 201);
  });
  app.put("/user/projects/:id", async (c) => {
    const { user } = await authenticateUser(c.get("credentials"));
    const { project, created } = await saveProject(user, pathParam(c, "id"), await readJsonObject(c));
    return c.json(project, created ? 201 : 200);
  });
  app.patch("/user/projects/:id", async (c) => {
    const { user } = await authenticateUser(c.get("credentials"));
    const body = await readJsonObject(c);
    // `{owner: <email>}` transfers the project (owner only); other keys are a plain update first.
    if (body.owner !== undefined) {
      const { owner, ...rest } = body;
      if (Object.keys(rest).length) {
        // A refused transfer must leave the other keys unapplied too.
        await checkTransfer(user, pathParam(c, "id"), owner);
        await patchProject(user, pathParam(c, "id"), rest);
      }
      return c.json(await transferProject(user, pathParam(c, "id"), owner));
    }
    return c.json(await patchProject(user, pathParam(c, "id"), body));
  });
  app.delete("/user/projects/:id", async (c) => {
    const { user } = await authenticateUser(c.get("credentials"));
    await deleteProject(user, pathParam(c, "id"));
    return c.body(null, 204);
  });
}

async function listProjects(c: Context<ApiEnv>, body: Record<string, unknown>) {
  const { user } = await authenticateUser(c.get("credentials"));
  const query = readListQuery(new URL(c.req.url).searchParams, body);
  const projects = (await listUserProjects(user._id)) as unknown as Record<string, unknown>[];
  const { items, total } = listInMemory(projects, query, ["_id", "name"]);
  return c.json(pageOf(items, total, query, clientRequestUrl(c)));
}
