import type { ProjectRoutes } from "../http/project-routes";
import { readListQuery } from "../lists/list-query";
import { projectFields } from "../lists/project-fields";

/**
 * The current project, on a project host (CONTRACT §2).
 *   GET /info/
 */
export function bindInfoApi(app: ProjectRoutes): void {
  app.get("/info", (c) => c.json(projectFields(c.get("project"), readListQuery(new URL(c.req.url).searchParams))));
}
