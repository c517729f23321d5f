import { validationError, type PropertyError } from "../errors";
import type { Principal } from "../auth/principal";

/**
 * A project's member as the system collection `_users` shows it (CONTRACT §10): exactly
 * `{ _id, is_active, role, date_joined }`. `date_joined` is null while an invitation waits to be
 * accepted (`isPendingMember`).
 */
export type MemberRole = "owner" | "admin" | "member";

export interface MemberView {
  _id: string;
  is_active: boolean;
  role: MemberRole;
  date_joined: string | null;
}

export interface MemberRow {
  email: string;
  userId: string | null;
  role: string;
  isActive: boolean;
  dateJoined: Date | null;
}

export function memberView(row: MemberRow): MemberView {
  return {
    _id: row.email,
    is_active: row.isActive,
    role: row.role as MemberRole,
    date_joined: row.userId && row.dateJoined ? row.dateJoined.toISOString() : null,
  };
}

/**
 * "owner" is accepted so a record read back can be saved unchanged; ownership itself is set when
 * the project is created and never moves through `_users` (the callers refuse giving it).
 */
const ROLES = new Set(["owner", "admin", "member"]);

/**
 * Properties a client may send back unchanged (a record read, edited and saved). `status` is what
 * records carried before they kept to the contract's four keys.
 */
const READ_ONLY = new Set(["_id", "email", "date_joined", "status"]);

export interface MemberFields {
  role?: MemberRole;
  isActive?: boolean;
}

/** Validates the writable part of a `_users` body (`role`, `is_active`); 422 otherwise. */
export function parseMemberFields(body: Record<string, unknown>): MemberFields {
  const errors: PropertyError[] = [];
  const out: MemberFields = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === "role") {
      if (typeof value === "string" && ROLES.has(value)) out.role = value as MemberRole;
      else errors.push({ property: "role", message: 'must be "admin" or "member"' });
    } else if (key === "is_active") {
      if (typeof value === "boolean") out.isActive = value;
      else errors.push({ property: "is_active", message: "must be a boolean" });
    } else if (!READ_ONLY.has(key)) errors.push({ property: key, message: "is not a member property" });
  }
  if (errors.length) throw validationError("Validation error", errors);
  return out;
}

/** Who did something, as written into `members.invited_by` and a notification's `author`. */
export function actorLabel(principal: Principal): string {
  return principal.kind === "user" ? principal.email : `token:${principal.tokenId}`;
}

/** How an invitation mail names whoever sent it. */
export function inviterLabel(principal: Principal): string {
  return principal.kind === "user" ? principal.email : `A project token (${principal.tokenId})`;
}
