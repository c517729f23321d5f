import { conflict, forbidden, notFound, validationError } from "../errors";
import { prisma } from "../db/pool";
import { query, transaction } from "../db/query";
import { whileNarrowingAccess } from "../auth/auth-cache";
import { sql } from "../db/sql";
import { isValidEmail, normalizeEmail } from "../auth/email";
import type { Principal } from "../auth/principal";
import { findUserByEmail } from "../auth/users";
import { sendMail } from "../mail/send-mail";
import { projectAddedMail } from "../mail/templates";
import { issueInvitation, sendInvitationMail } from "./invitations";
import { lockMember, memberRow, selectMemberForUpdate } from "./member-lock";
import { actorLabel, inviterLabel, memberView, parseMemberFields, type MemberFields, type MemberView } from "./member";
import { writeNotification } from "./notifications";
import { projectLink } from "./public-url";

/** The project's members, the system collection `_users` (CONTRACT §10; roles in docs/members.md). */
export interface ProjectRef {
  _id: string;
  name: string;
}

export async function listMembers(projectId: string): Promise<MemberView[]> {
  const rows = await prisma().member.findMany({ where: { projectId }, orderBy: { email: "asc" } });
  return rows.map(memberView);
}

export async function getMember(projectId: string, email: string): Promise<MemberView> {
  const row = await prisma().member.findUnique({ where: { projectId_email: { projectId, email: normalizeEmail(email) } } });
  if (!row) throw notFound("Document not found.");
  return memberView(row);
}

export async function memberExists(projectId: string, email: string): Promise<boolean> {
  const row = await prisma().member.findUnique({ where: { projectId_email: { projectId, email: normalizeEmail(email) } } });
  return Boolean(row);
}

/**
 * Inserting an address into `_users` invites it. A registered (confirmed) user becomes an active
 * member at once and is told by mail; anyone else becomes a pending member and gets a one-time
 * link. Inviting a pending address again replaces its link; an active member is a 409; a removed
 * (`is_active: false`) member who is registered is reactivated.
 */
export async function inviteMember(
  project: ProjectRef,
  principal: Principal,
  body: Record<string, unknown>,
  emailInput: unknown = body._id ?? body.email,
): Promise<{ member: MemberView; created: boolean }> {
  if (typeof emailInput !== "string" || !isValidEmail(emailInput))
    throw validationError("Validation error", [{ property: "_id", message: "Enter a valid e-mail address" }]);
  const email = normalizeEmail(emailInput);
  checkBodyId(body, email, "must match the id in the path");
  const fields = parseMemberFields(body);
  if (fields.role === "owner")
    throw validationError("Validation error", [{ property: "role", message: 'must be "admin" or "member"; a project has one owner' }]);
  const role = fields.role ?? "member";
  const isActive = fields.isActive ?? true;
  const actor = actorLabel(principal);
  const user = await findUserByEmail(email);

  const outcome = await transaction(async (client) => {
    await lockMember(client, project._id, email);
    const existing = await selectMemberForUpdate(client, project._id, email);
    if (existing && (existing.role === "owner" || (existing.user_id && existing.is_active)))
      throw conflict("User is already a member.");
    if (user) {
      const [row] = await query<{ date_joined: Date }>(
        sql`INSERT INTO members (project_id, email, user_id, role, is_active, date_joined, invited_at, invited_by)
            VALUES (${project._id}, ${email}, ${user._id}, ${role}, ${isActive}, now(), now(), ${actor})
            ON CONFLICT (project_id, email) DO UPDATE SET user_id = EXCLUDED.user_id, role = EXCLUDED.role,
              is_active = EXCLUDED.is_active, date_joined = now(), invited_at = now(), invited_by = EXCLUDED.invited_by
            RETURNING date_joined`,
        client,
      );
      await query(sql`DELETE FROM invitations WHERE project_id = ${project._id} AND email = ${email}`, client);
      await writeNotification(
        project._id,
        { author: actor, subject: `${email} was added to the project`, message: `${actor} added ${email} to the project as ${role}.` },
        client,
      );
      return { kind: "added" as const, dateJoined: row.date_joined, created: !existing };
    }
    await query(
      sql`INSERT INTO members (project_id, email, user_id, role, is_active, date_joined, invited_at, invited_by)
          VALUES (${project._id}, ${email}, NULL, ${role}, ${isActive}, NULL, now(), ${actor})
          ON CONFLICT (project_id, email) DO UPDATE SET user_id = NULL, role = EXCLUDED.role, is_active = EXCLUDED.is_active,
            date_joined = NULL, invited_at = now(), invited_by = EXCLUDED.invited_by`,
      client,
    );
    const invitation = await issueInvitation(client, project._id, email);
    await writeNotification(
      project._id,
      {
        author: actor,
        subject: `Invitation sent to ${email}`,
        message: `${actor} invited ${email} to join the project as ${role}. The link expires on ${invitation.expiresAt.toISOString()}.`,
      },
      client,
    );
    return { kind: "invited" as const, invitation, created: !existing };
  });

  if (outcome.kind === "added") {
    // Access is already granted; the mail is a courtesy, so a mail failure must not undo it.
    await sendMail({
      to: email,
      ...projectAddedMail({ projectName: project.name, projectId: project._id, inviterEmail: inviterLabel(principal), link: projectLink(project._id) }),
    }).catch((error) => console.error(`members: ${error instanceof Error ? error.message : String(error)}`));
    return {
      member: memberView({ email, userId: user!._id, role, isActive, dateJoined: outcome.dateJoined }),
      created: outcome.created,
    };
  }
  // The link exists only in this mail: a failure is the caller's to see (re-inviting sends a new one).
  await sendInvitationMail({ to: email, project, inviter: inviterLabel(principal), ...outcome.invitation });
  return { member: memberView({ email, userId: null, role, isActive, dateJoined: null }), created: outcome.created };
}

/**
 * PATCH (merge) or PUT (replace; absent fields reset to role "member", active) of a member's
 * `role` and `is_active`. The owner keeps the role and cannot be deactivated.
 */
export async function updateMember(
  projectId: string,
  emailInput: string,
  body: Record<string, unknown>,
  mode: "merge" | "replace",
): Promise<MemberView> {
  const email = normalizeEmail(emailInput);
  checkBodyId(body, email, mode === "replace" ? "must match the id in the path" : "cannot be changed");
  const fields: MemberFields = parseMemberFields(body);
  return whileNarrowingAccess(() => transaction(async (client) => {
    await lockMember(client, projectId, email);
    const current = await selectMemberForUpdate(client, projectId, email);
    if (!current) throw notFound("Document not found.");
    const isOwner = current.role === "owner";
    const role = fields.role ?? (mode === "merge" || isOwner ? current.role : "member");
    const isActive = fields.isActive ?? (mode === "merge" ? current.is_active : true);
    if (isOwner && role !== "owner") throw forbidden("The owner's role cannot be changed.");
    if (isOwner && !isActive) throw forbidden("The owner cannot be deactivated.");
    if (!isOwner && role === "owner")
      throw validationError("Validation error", [{ property: "role", message: 'must be "admin" or "member"; a project has one owner' }]);
    await query(
      sql`UPDATE members SET role = ${role}, is_active = ${isActive} WHERE project_id = ${projectId} AND email = ${email}`,
      client,
    );
    return memberView({ ...memberRow(current), role, isActive });
  }));
}

/** Removes a member (access ends with their next request) and any link still waiting for them. */
export async function removeMember(projectId: string, emailInput: string, principal: Principal): Promise<void> {
  const email = normalizeEmail(emailInput);
  await whileNarrowingAccess(() => transaction(async (client) => {
    await lockMember(client, projectId, email);
    const current = await selectMemberForUpdate(client, projectId, email);
    if (!current) throw notFound("Document not found.");
    if (current.role === "owner") throw forbidden("The owner cannot be removed.");
    await query(sql`DELETE FROM members WHERE project_id = ${projectId} AND email = ${email}`, client);
    await query(sql`DELETE FROM invitations WHERE project_id = ${projectId} AND email = ${email}`, client);
    const actor = actorLabel(principal);
    await writeNotification(
      projectId,
      {
        author: actor,
        subject: current.user_id ? `${email} was removed from the project` : `Invitation of ${email} withdrawn`,
        message: actor === email ? `${email} left the project.` : `${actor} removed ${email} from the project.`,
      },
      client,
    );
  }));
}

/** A body's `_id`, when sent, names the member the path does (as a document's must, §5). */
function checkBodyId(body: Record<string, unknown>, email: string, message: string): void {
  if (body._id !== undefined && (typeof body._id !== "string" || normalizeEmail(body._id) !== email))
    throw validationError("Validation error", [{ property: "_id", message }]);
}
