import type { Credentials } from "../auth/authenticate";
import type { Principal } from "../auth/principal";
import type { Client } from "../rate-limits/guessing-limits";
import type { ProjectView } from "../projects/project";
import type { ProjectIncarnation } from "../projects/project-incarnation";

/** What the pipeline learns about a request, shared by every route of the API app. */
export interface ApiEnv {
  Variables: {
    /** The project named by the host or X-Project, before it is looked up. */
    projectId: string | undefined;
    credentials: Credentials;
    /** The client's network address, for per-IP limits (lib/rate-limits/client-address.ts). */
    client: Client;
    /** Set by `requireProject` once the project and principal are known. */
    project: ProjectView;
    /** Which project of that id (lib/projects/project-incarnation.ts). */
    projectIncarnation: ProjectIncarnation;
    principal: Principal;
    /** Set by `meterRequest` on its first pass (routes that step aside run it again). */
    metered: boolean;
    /** The text of a JSON request body, once `readJsonBody` has read it (for the `_debug` log). */
    requestBody: string;
  };
}
