import { forbidden, notFound, unauthorized } from "../errors";
import { queryOne } from "../db/query";
import { sql } from "../db/sql";
import { projectView, type ProjectView } from "../projects/project";
import { INCARNATION_OF_P, type ProjectIncarnation } from "../projects/project-incarnation";
import { normalizePermission } from "./permission";
import type { Principal, Role } from "./principal";
import { cachedAuthentication } from "./auth-cache";
import { hashSecret } from "./secrets";
import { userForSession, type PublicUser } from "./users";

/** What a request presented: a project token secret, or a user session id. */
export type Credentials = { kind: "token"; secret: string } | { kind: "session"; sessionId: string } | undefined;

export interface ProjectRequestAuth {
  project: ProjectView;
  /** Which project of that id (a deleted project's id can be taken again). */
  incarnation: ProjectIncarnation;
  ownerId: string;
  principal: Principal;
}

interface ProjectAuthRow {
  id: string;
  name: string;
  owner_id: string;
  settings: unknown;
  is_active: boolean;
  files_size: number;
  data_size: number;
  incarnation: number;
  token_id: string | null;
  token_active: boolean | null;
  permission: unknown;
  user_id: string | null;
  email: string | null;
  role: string | null;
}

/**
 * Resolves the project and the principal in one round trip. Order of answers: unknown project
 * 404, no or unknown credentials 401, inactive project or non-member 403.
 */
export async function authenticateProjectRequest(projectId: string, credentials: Credentials): Promise<ProjectRequestAuth> {
  const tokenHash = credentials?.kind === "token" ? hashSecret(credentials.secret) : null;
  const sessionHash = credentials?.kind === "session" ? hashSecret(credentials.sessionId) : null;
  const load = () => loadProjectRequestAuth(projectId, tokenHash, sessionHash);
  if (tokenHash) return cachedAuthentication(`${projectId}\0t\0${tokenHash}`, load);
  if (sessionHash) return cachedAuthentication(`${projectId}\0s\0${sessionHash}`, load);
  return load();
}

async function loadProjectRequestAuth(projectId: string, tokenHash: string | null, sessionHash: string | null): Promise<ProjectRequestAuth> {
  const row = await queryOne<ProjectAuthRow>(sql`
    SELECT p.id, p.name, p.owner_id, p.settings, p.is_active, p.files_size, p.data_size, ${INCARNATION_OF_P} AS incarnation,
           t.id AS token_id, t.is_active AS token_active, t.permission,
           u.id AS user_id, u.email, m.role
    FROM projects p
    LEFT JOIN tokens t ON t.project_id = p.id AND t.secret_hash = ${tokenHash}
    LEFT JOIN sessions s ON s.id_hash = ${sessionHash} AND s.expires_at > now()
    LEFT JOIN users u ON u.id = s.user_id AND u.confirmed_at IS NOT NULL
    LEFT JOIN members m ON m.project_id = p.id AND m.user_id = u.id AND m.is_active
    WHERE p.id = ${projectId}`);
  if (!row) throw notFound("Project not found.");
  const project = projectView({
    id: row.id,
    name: row.name,
    ownerId: row.owner_id,
    settings: row.settings,
    isActive: row.is_active,
    filesSize: row.files_size,
    dataSize: row.data_size,
  });
  // "403 to every call" (CONTRACT §1): with any credentials or none, before they are looked at.
  if (!project.status.is_active) throw forbidden("Project is not active.");
  let principal: Principal;
  if (row.token_id) {
    if (!row.token_active) throw unauthorized();
    principal = { kind: "token", tokenId: row.token_id, allow: normalizePermission(row.permission) };
  } else if (row.user_id && row.email) {
    if (!row.role) throw forbidden("You are not a member of this project.");
    principal = { kind: "user", userId: row.user_id, email: row.email, role: row.role as Role };
  } else throw unauthorized();
  return { project, incarnation: Number(row.incarnation), ownerId: row.owner_id, principal };
}

/** The signed-in user for the bare host's account routes; tokens never reach them. */
export async function authenticateUser(credentials: Credentials): Promise<{ user: PublicUser; sessionId: string }> {
  if (credentials?.kind !== "session") throw unauthorized();
  const user = await userForSession(credentials.sessionId);
  if (!user) throw unauthorized();
  return { user, sessionId: credentials.sessionId };
}
