import type pg from "pg";
import { conflict, forbidden, notFound, validationError } from "../errors";
import { prisma } from "../db/pool";
import { query, queryOne, transaction } from "../db/query";
import { sql } from "../db/sql";
import { hashPassword } from "../auth/password";
import { generateId, hashSecret, randomSecret } from "../auth/secrets";
import { openSession, requireUserName, type PublicUser } from "../auth/users";
import { sendMail } from "../mail/send-mail";
import { projectInvitationMail } from "../mail/templates";
import { lockMember, memberRow, selectMemberForUpdate } from "./member-lock";
import { memberView, type MemberView } from "./member";
import { writeNotification } from "./notifications";
import { invitationLink } from "./public-url";
import { assertFailuresUnder, countFailure, type Client } from "../rate-limits/guessing-limits";

/**
 * One-time invitation links (`/invite/<token>`): the token is random, stored only as its hash,
 * valid for 7 days, and at most one unused link per address and project exists: issuing a new
 * one (re-invite, "send me a new link") deletes the old, and removing the pending member deletes
 * it too. A used link is kept, so it can say "already used".
 */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

const MIN_PASSWORD = 8;
const NO_CLIENT: Client = { address: undefined };

/** "withdrawn": the pending member was deactivated; reactivating them makes the link usable again. */
export type InvitationState = "valid" | "expired" | "used" | "withdrawn";

export interface InvitationInfo {
  project: { _id: string; name: string };
  email: string;
  state: InvitationState;
  expires_at: string;
  /** The address already has an Arca account: the page asks to sign in rather than sign up. */
  has_account: boolean;
}

export interface AcceptedInvitation {
  project: { _id: string; name: string };
  member: MemberView;
  /** A new session, when the invitation created the account (no session was presented). */
  sessionId?: string;
}

interface InvitationRecord {
  token_hash: string;
  project_id: string;
  email: string;
  expires_at: Date;
  used_at: Date | null;
  project_name: string;
}

/** Replaces any unused link of the address with a new one, inside the caller's transaction. */
export async function issueInvitation(
  client: pg.PoolClient,
  projectId: string,
  email: string,
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomSecret(32);
  const expiresAt = new Date(Date.now() + INVITATION_TTL_MS);
  await query(sql`DELETE FROM invitations WHERE project_id = ${projectId} AND email = ${email} AND used_at IS NULL`, client);
  await query(
    sql`INSERT INTO invitations (token_hash, project_id, email, expires_at)
        VALUES (${hashSecret(token)}, ${projectId}, ${email}, ${expiresAt})`,
    client,
  );
  return { token, expiresAt };
}

export async function sendInvitationMail(input: {
  to: string;
  project: { _id: string; name: string };
  inviter: string;
  token: string;
  expiresAt: Date;
}): Promise<void> {
  await sendMail({
    to: input.to,
    ...projectInvitationMail({
      projectName: input.project.name,
      projectId: input.project._id,
      inviterEmail: input.inviter,
      link: invitationLink(input.token),
      expiresAt: input.expiresAt,
    }),
  });
}

/** What the invitation page shows; 404 for a token that never existed or was replaced. */
export async function readInvitation(token: string, requester: Client = NO_CLIENT): Promise<InvitationInfo> {
  const invitation = await findInvitation(token, requester);
  const user = await prisma().user.findUnique({ where: { email: invitation.email } });
  const member = await queryOne<{ is_active: boolean }>(
    sql`SELECT is_active FROM members WHERE project_id = ${invitation.project_id} AND email = ${invitation.email}`,
  );
  const state = stateOf(invitation);
  return {
    project: { _id: invitation.project_id, name: invitation.project_name },
    email: invitation.email,
    state: state !== "used" && member && !member.is_active ? "withdrawn" : state,
    expires_at: invitation.expires_at.toISOString(),
    has_account: Boolean(user?.confirmedAt),
  };
}

/**
 * Joins the invited address to the project. With a session, its user must own the invited
 * address. Without one, `password` creates the account, confirmed at once (following the mailed
 * link proves the address); an address that already has an account must sign in instead.
 */
export async function acceptInvitation(
  token: string,
  input: { user?: PublicUser; password?: unknown; name?: unknown },
  requester: Client = NO_CLIENT,
): Promise<AcceptedInvitation> {
  const found = await findInvitation(token, requester);
  assertUsable(found);
  let passwordHash: string | undefined;
  if (input.user) {
    if (input.user.email.toLowerCase() !== found.email)
      throw forbidden("This invitation was sent to another e-mail address.");
  } else passwordHash = await hashPassword(requirePassword(input.password));
  const name = input.name === undefined || input.name === null ? "" : requireUserName(input.name).trim();

  const joined = await transaction(async (client) => {
    await lockMember(client, found.project_id, found.email);
    const invitation = await queryOne<InvitationRecord>(
      sql`SELECT i.*, p.name AS project_name FROM invitations i JOIN projects p ON p.id = i.project_id
          WHERE i.token_hash = ${found.token_hash} FOR UPDATE OF i`,
      client,
    );
    if (!invitation) throw invitationNotFound();
    assertUsable(invitation);
    const member = await selectMemberForUpdate(client, invitation.project_id, invitation.email);
    if (!member) throw invitationNotFound();
    if (member.user_id && member.date_joined) throw conflict("User is already a member.");
    if (!member.is_active) throw forbidden("This invitation has been withdrawn.");

    const userId = input.user ? input.user._id : await createInvitedUser(client, invitation.email, passwordHash!, name);
    await query(sql`UPDATE invitations SET used_at = now() WHERE token_hash = ${invitation.token_hash}`, client);
    await query(
      sql`DELETE FROM invitations WHERE project_id = ${invitation.project_id} AND email = ${invitation.email} AND used_at IS NULL`,
      client,
    );
    const updated = await queryOne<{ date_joined: Date }>(
      sql`UPDATE members SET user_id = ${userId}, date_joined = now()
          WHERE project_id = ${invitation.project_id} AND email = ${invitation.email} RETURNING date_joined`,
      client,
    );
    await writeNotification(
      invitation.project_id,
      {
        author: invitation.email,
        subject: `${invitation.email} joined the project`,
        message: `${invitation.email} accepted the invitation and joined the project as ${member.role}.`,
      },
      client,
    );
    return {
      userId,
      project: { _id: invitation.project_id, name: invitation.project_name },
      member: memberView({ ...memberRow(member), userId, dateJoined: updated!.date_joined }),
    };
  });
  const result: AcceptedInvitation = { project: joined.project, member: joined.member };
  if (!input.user) result.sessionId = await openSession(joined.userId);
  return result;
}

/**
 * "Send me a new link": mails a fresh link to the invited address (and only there), replacing
 * this one. Works on an expired link; a used one has nothing left to resend.
 */
export async function resendInvitation(token: string, requester: Client = NO_CLIENT): Promise<{ email: string }> {
  const found = await findInvitation(token, requester);
  if (found.used_at) throw conflict("Invitation has already been used.");
  const issued = await transaction(async (client) => {
    await lockMember(client, found.project_id, found.email);
    const still = await queryOne<{ used_at: Date | null }>(
      sql`SELECT used_at FROM invitations WHERE token_hash = ${found.token_hash} FOR UPDATE`,
      client,
    );
    if (!still) throw invitationNotFound();
    if (still.used_at) throw conflict("Invitation has already been used.");
    const member = await selectMemberForUpdate(client, found.project_id, found.email);
    if (!member || member.user_id) throw invitationNotFound();
    if (!member.is_active) throw forbidden("This invitation has been withdrawn.");
    return { ...(await issueInvitation(client, found.project_id, found.email)), invitedBy: member.invited_by };
  });
  await sendInvitationMail({
    to: found.email,
    project: { _id: found.project_id, name: found.project_name },
    inviter: inviterFromLabel(issued.invitedBy, found.project_id),
    token: issued.token,
    expiresAt: issued.expiresAt,
  });
  return { email: found.email };
}

/**
 * The invitation of a link. Links are 256-bit secrets, so guessing is hopeless; still, each
 * unknown link counts as a failed guess of the requester's address (lib/rate-limits), and an
 * address past its limit is refused (429) before the lookup.
 */
async function findInvitation(token: string, requester: Client): Promise<InvitationRecord> {
  await assertFailuresUnder(requester);
  const invitation = token
    ? await queryOne<InvitationRecord>(
        sql`SELECT i.*, p.name AS project_name FROM invitations i JOIN projects p ON p.id = i.project_id
            WHERE i.token_hash = ${hashSecret(token)}`,
      )
    : undefined;
  if (!invitation) {
    await countFailure(requester);
    throw invitationNotFound();
  }
  return invitation;
}

function stateOf(invitation: Pick<InvitationRecord, "used_at" | "expires_at">): InvitationState {
  if (invitation.used_at) return "used";
  if (invitation.expires_at.getTime() <= Date.now()) return "expired";
  return "valid";
}

function assertUsable(invitation: Pick<InvitationRecord, "used_at" | "expires_at">): void {
  const state = stateOf(invitation);
  if (state === "used") throw conflict("Invitation has already been used.");
  if (state === "expired") throw validationError("Invitation has expired.");
}

/** A confirmed account for the invited address; a never-confirmed sign-up of it is taken over. */
async function createInvitedUser(client: pg.PoolClient, email: string, passwordHash: string, name: string): Promise<string> {
  const existing = await queryOne<{ id: string; confirmed_at: Date | null }>(
    sql`SELECT id, confirmed_at FROM users WHERE email = ${email} FOR UPDATE`,
    client,
  );
  if (existing?.confirmed_at)
    throw conflict("An account with this e-mail already exists. Sign in to accept the invitation.");
  if (existing) {
    await query(
      sql`UPDATE users SET password_hash = ${passwordHash}, name = ${name}, confirmed_at = now() WHERE id = ${existing.id}`,
      client,
    );
    return existing.id;
  }
  const id = generateId();
  await query(
    sql`INSERT INTO users (id, email, name, password_hash, confirmed_at) VALUES (${id}, ${email}, ${name}, ${passwordHash}, now())`,
    client,
  );
  return id;
}

function requirePassword(value: unknown): string {
  if (typeof value !== "string" || value.length < MIN_PASSWORD || value.length > 1024)
    throw validationError("Validation error", [
      { property: "password", message: `Password must be ${MIN_PASSWORD} to 1024 characters` },
    ]);
  return value;
}

/** `members.invited_by` holds an e-mail or `token:<id>`; the mail names a person or a token. */
export function inviterFromLabel(label: string | null, projectId: string): string {
  if (!label) return `The project ${projectId}`;
  return label.startsWith("token:") ? `A project token (${label.slice("token:".length)})` : label;
}

function invitationNotFound() {
  return notFound("Invitation not found.");
}
