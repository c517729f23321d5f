import { unauthorized } from "../errors";
import type { ProjectRoutes } from "../http/project-routes";
import { readListQuery } from "../lists/list-query";
import { projectFields } from "../lists/project-fields";
import { readProject } from "../projects/projects";

/**
 * The current project, on a project host (CONTRACT §2).
 *   GET /info/
 */
export function bindInfoApi(app: ProjectRoutes): void {
  app.get("/info", async (c) => {
    // Project management is for people: a token, however powerful, is no credential here.
    if (c.get("principal").kind !== "user") throw unauthorized();
    const project = await readProject(c.get("project")._id);
    return c.json(projectFields(project, readListQuery(new URL(c.req.url).searchParams)));
  });
}
