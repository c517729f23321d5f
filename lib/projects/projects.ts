import { sweepIndexesSoon } from "../collections/index-sweep";
import { scheduleBlobDeletions } from "../files/blob-deletions";
import { AppError, conflict, forbidden, notFound, validationError } from "../errors";
import { prisma } from "../db/pool";
import { query, transaction } from "../db/query";
import { sql } from "../db/sql";
import { whileNarrowingAccess } from "../auth/auth-cache";
import { cancelPendingCounters, holdOffCounterCompaction } from "./counters";
import type { PublicUser } from "../auth/users";
import {
  MAX_PROJECTS_PER_OWNER,
  PROJECT_ID,
  defaultSettings,
  parseProjectInput,
  projectView,
  type ProjectRow,
  type ProjectSettings,
  type ProjectView,
} from "./project";

/** Projects seen from an account on the bare host (CONTRACT §2). */
export interface ProjectAccess {
  project: ProjectView;
  role: "owner" | "admin" | "member";
}

export async function listUserProjects(userId: string): Promise<ProjectView[]> {
  const rows = await prisma().$queryRaw<Array<{ id: string }>>`
    SELECT project_id AS id FROM members WHERE user_id = ${userId} AND is_active ORDER BY project_id`;
  const projects = await prisma().project.findMany({ where: { id: { in: rows.map((r) => r.id) } }, orderBy: { id: "asc" } });
  return viewsWithTotals(projects);
}

/** The project as stored now (status sizes change with every write, so never from a cache). */
export async function readProject(projectId: string): Promise<ProjectView> {
  const project = await prisma().project.findUnique({ where: { id: projectId } });
  if (!project) throw notFound("Project not found.");
  return (await viewsWithTotals([project]))[0];
}

/**
 * The project as its member `userId` may see it. Another user's project is 403, as on the
 * project's own host (CONTRACT §1 "known but not allowed"); hiding it would gain nothing, since
 * project ids are global and creating a taken one says 409.
 */
export async function getUserProject(userId: string, projectId: string): Promise<ProjectAccess> {
  const project = await prisma().project.findUnique({ where: { id: projectId } });
  if (!project) throw notFound("Project not found.");
  const member = await prisma().member.findFirst({ where: { projectId, userId, isActive: true } });
  if (!member) throw forbidden("You are not a member of this project.");
  return { project: (await viewsWithTotals([project]))[0], role: member.role as ProjectAccess["role"] };
}

export async function createProject(user: PublicUser, projectId: string, body: Record<string, unknown>): Promise<ProjectView> {
  if (!PROJECT_ID.test(projectId))
    throw validationError("Validation error", [
      { property: "_id", message: "must match ^[a-z][a-z0-9-]{1,62}$ (lowercase letters, digits, dashes)" },
    ]);
  checkBodyId(projectId, body);
  const input = parseProjectInput(body, { name: projectId, settings: { ...defaultSettings }, isActive: true });
  return transaction(async (client) => {
    // Serialises concurrent creates by one owner so the limit of 5 cannot be raced past.
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`projects:${user._id}`]);
    // A taken id is 409 whatever the owner's count: the limit speaks only of a new project.
    const taken = await client.query("SELECT 1 FROM projects WHERE id = $1", [projectId]);
    if (taken.rowCount) throw conflict("Project already exists.");
    const { rows } = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM projects WHERE owner_id = $1", [user._id]);
    if (rows[0].n >= MAX_PROJECTS_PER_OWNER)
      throw validationError(`A user can own at most ${MAX_PROJECTS_PER_OWNER} projects.`);
    const inserted = await client.query(
      `INSERT INTO projects (id, name, owner_id, settings, is_active) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [projectId, input.name, user._id, JSON.stringify(input.settings), input.isActive],
    );
    if (!inserted.rowCount) throw conflict("Project already exists.");
    await client.query(
      `INSERT INTO members (project_id, email, user_id, role, is_active, date_joined) VALUES ($1, $2, $3, 'owner', true, now())`,
      [projectId, user.email, user._id],
    );
    return projectView({ id: projectId, name: input.name, ownerId: user._id, settings: input.settings, isActive: input.isActive, filesSize: 0, dataSize: 0 });
  });
}

/** An `_id` in the body names the project too: another than the path's is refused, never ignored. */
function checkBodyId(projectId: string, body: Record<string, unknown>): void {
  if (body._id !== undefined && body._id !== projectId)
    throw validationError("Validation error", [{ property: "_id", message: "must match the id in the path" }]);
}

/** PUT: creates when missing (201), replaces name and settings when present (200). */
export async function saveProject(
  user: PublicUser,
  projectId: string,
  body: Record<string, unknown>,
): Promise<{ project: ProjectView; created: boolean }> {
  checkBodyId(projectId, body);
  const exists = await prisma().project.findUnique({ where: { id: projectId } });
  if (!exists) return { project: await createProject(user, projectId, body), created: true };
  // Project ids are global: someone else's is taken (409, as a POST of it says), not absent.
  const access = await getUserProject(user._id, projectId).catch((error) => {
    throw error instanceof AppError && (error.kind === "notFound" || error.kind === "forbidden") ? conflict("Project already exists.") : error;
  });
  requireManager(access);
  const input = parseProjectInput(body, { name: projectId, settings: { ...defaultSettings }, isActive: true });
  return { project: await writeProject(projectId, input), created: false };
}

export async function patchProject(user: PublicUser, projectId: string, body: Record<string, unknown>): Promise<ProjectView> {
  checkBodyId(projectId, body);
  const access = await getUserProject(user._id, projectId);
  requireManager(access);
  // Merged with the row as it is under its lock: two PATCHes of different keys (a name, a size
  // limit) both take, never the later one writing back what the earlier read.
  await whileNarrowingAccess(() =>
    transaction(async (client) => {
      const [row] = await query<{ name: string; settings: unknown; is_active: boolean }>(
        sql`SELECT name, settings, is_active FROM projects WHERE id = ${projectId} FOR UPDATE`,
        client,
      );
      if (!row) throw notFound("Project not found.");
      const settings = { ...defaultSettings, ...(row.settings as Partial<ProjectSettings>) };
      const input = parseProjectInput(body, { name: row.name, settings, isActive: row.is_active });
      await query(
        sql`UPDATE projects SET name = ${input.name}, settings = ${JSON.stringify(input.settings)}::jsonb, is_active = ${input.isActive} WHERE id = ${projectId}`,
        client,
      );
    }),
  );
  const updated = await prisma().project.findUnique({ where: { id: projectId } });
  if (!updated) throw notFound("Project not found.");
  return (await viewsWithTotals([updated]))[0];
}

async function writeProject(
  projectId: string,
  input: { name: string; settings: ProjectSettings; isActive: boolean },
): Promise<ProjectView> {
  const row = await whileNarrowingAccess(() =>
    prisma().project.update({
      where: { id: projectId },
      data: { name: input.name, settings: input.settings as object, isActive: input.isActive },
    }),
  );
  return (await viewsWithTotals([row]))[0];
}

/** Project views with their current sizes: the columns plus pending counter deltas. */
async function viewsWithTotals(rows: ProjectRow[]): Promise<ProjectView[]> {
  if (rows.length === 0) return [];
  const totals = await query<{ project_id: string; data_size: number; files_size: number }>(
    sql`SELECT project_id, data_size, files_size FROM project_totals WHERE project_id = ANY(${rows.map((r) => r.id)}::text[])`,
  );
  const byId = new Map(totals.map((t) => [t.project_id, t]));
  return rows.map((row) => {
    const total = byId.get(row.id);
    return projectView(total ? { ...row, dataSize: total.data_size, filesSize: total.files_size } : row);
  });
}

/** Owner only. Documents, files and members go with it; bytes are queued for deletion. */
export async function deleteProject(user: PublicUser, projectId: string): Promise<void> {
  const access = await getUserProject(user._id, projectId);
  if (access.role !== "owner") throw forbidden("Only the owner can delete a project.");
  await whileNarrowingAccess(() =>
    transaction(async (client) => {
      await holdOffCounterCompaction(client);
      // First the row itself: writes in flight (holding its key share) finish before anything is
      // read below, so their documents, events and files go too; later ones wait, then find no
      // project (404). Without it a write committing meanwhile left its events (replayed to a new
      // project of the same id) and its bytes behind.
      await query(sql`SELECT 1 FROM projects WHERE id = ${projectId} FOR UPDATE`, client);
      await query(sql`INSERT INTO blob_deletions (blob_key) SELECT blob_key FROM files WHERE project_id = ${projectId}`, client);
      await query(sql`DELETE FROM documents WHERE project_id = ${projectId}`, client);
      await query(sql`DELETE FROM projects WHERE id = ${projectId}`, client);
      // Last: the cascade above waited for writes into its collections (their key share), and the
      // outbox has no foreign key to wait with; a fresh snapshot now sees their events too.
      await query(sql`DELETE FROM document_events WHERE project_id = ${projectId}`, client);
      await cancelPendingCounters(client, projectId);
    }),
  );
  sweepIndexesSoon(); // its collections' indexes: dropped outside this transaction
  scheduleBlobDeletions(projectId); // its bytes, now that no record names them (as a document delete does)
}

function requireManager(access: ProjectAccess): void {
  if (access.role === "member") throw forbidden("Only the owner or an admin can change a project.");
}
