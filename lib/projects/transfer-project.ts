import { whileNarrowingAccess } from "../auth/auth-cache";
import type { PublicUser } from "../auth/users";
import { query, transaction, type Queryable } from "../db/query";
import { raw, sql } from "../db/sql";
import { forbidden, validationError } from "../errors";
import { MAX_PROJECTS_PER_OWNER, type ProjectView } from "./project";
import { getUserProject, readProject } from "./projects";

/**
 * Hands a project to another of its members (`PATCH /api/user/projects/<id>/ {owner: <email>}`,
 * owner only). The new owner must be an active member who has joined (not a pending invitation)
 * and own fewer than the most projects an account may own; the previous owner stays as an admin.
 */
export async function transferProject(user: PublicUser, projectId: string, owner: unknown): Promise<ProjectView> {
  const email = await checkTransfer(user, projectId, owner);
  await whileNarrowingAccess(() =>
    transaction(async (client) => {
      // The project row first: of two transfers at once, the second sees the first's new owner
      // (both left two owners when they ran side by side).
      const [current] = await query<{ owner_id: string }>(sql`SELECT owner_id FROM projects WHERE id = ${projectId} FOR UPDATE`, client);
      if (current?.owner_id !== user._id) throw forbidden("Only the owner can transfer a project.");
      const newOwner = await transferee(projectId, email, client, true);
      if (newOwner === user._id) return;
      await query(sql`UPDATE projects SET owner_id = ${newOwner} WHERE id = ${projectId}`, client);
      await query(sql`UPDATE members SET role = 'admin' WHERE project_id = ${projectId} AND user_id = ${user._id}`, client);
      await query(sql`UPDATE members SET role = 'owner' WHERE project_id = ${projectId} AND user_id = ${newOwner}`, client);
    }),
  );
  return readProject(projectId);
}

/**
 * The transfer's checks without writing (403, 422): a PATCH that carries other keys with `owner`
 * runs them before it applies those keys, so a refused transfer leaves the project as it was.
 * Answers the new owner's e-mail, normalized.
 */
export async function checkTransfer(user: PublicUser, projectId: string, owner: unknown): Promise<string> {
  const access = await getUserProject(user._id, projectId);
  if (access.role !== "owner") throw forbidden("Only the owner can transfer a project.");
  if (typeof owner !== "string" || !owner.trim()) throw validationError("Validation error", [{ property: "owner", message: "must be the e-mail of a member" }]);
  const email = owner.trim().toLowerCase();
  await transferee(projectId, email);
  return email;
}

/** The joined, active member who would own the project (and may own one more); 422 otherwise. */
async function transferee(projectId: string, email: string, client?: Queryable, lock = false): Promise<string> {
  const [member] = await query<{ user_id: string | null; is_active: boolean }>(
    sql`SELECT user_id, is_active FROM members WHERE project_id = ${projectId} AND lower(email) = ${email} ${raw(lock ? "FOR UPDATE" : "")}`,
    client,
  );
  if (!member?.user_id || !member.is_active)
    throw validationError("Validation error", [{ property: "owner", message: "must be an active member who has joined the project" }]);
  // The lock createProject takes for its owner: transfers to an account and its own creates take
  // turns, so together they cannot raise it past the most projects an account may own.
  if (lock) await query(sql`SELECT pg_advisory_xact_lock(hashtext(${`projects:${member.user_id}`}))`, client);
  const [{ owned, current }] = await query<{ owned: number; current: boolean }>(
    sql`SELECT count(*)::int AS owned, bool_or(id = ${projectId}) AS current FROM projects WHERE owner_id = ${member.user_id}`,
    client,
  );
  if (!current && owned >= MAX_PROJECTS_PER_OWNER)
    throw validationError("Validation error", [{ property: "owner", message: `already owns ${MAX_PROJECTS_PER_OWNER} projects, the most an account can own` }]);
  return member.user_id;
}
