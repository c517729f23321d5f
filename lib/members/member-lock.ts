import type pg from "pg";
import { queryOne } from "../db/query";
import { sql } from "../db/sql";

/**
 * Every change to one member (invite, accept, resend, remove) first takes this transaction lock,
 * so two of them never interleave and row locks are always taken in the same order.
 */
export async function lockMember(client: pg.PoolClient, projectId: string, email: string): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`members:${projectId}:${email}`]);
}

export interface MemberRecord {
  email: string;
  user_id: string | null;
  role: string;
  is_active: boolean;
  date_joined: Date | null;
  invited_by: string | null;
}

/** The member row, locked for the rest of the transaction. */
export function selectMemberForUpdate(client: pg.PoolClient, projectId: string, email: string): Promise<MemberRecord | undefined> {
  return queryOne<MemberRecord>(
    sql`SELECT email, user_id, role, is_active, date_joined, invited_by FROM members
        WHERE project_id = ${projectId} AND email = ${email} FOR UPDATE`,
    client,
  );
}

export function memberRow(record: MemberRecord) {
  return {
    email: record.email,
    userId: record.user_id,
    role: record.role,
    isActive: record.is_active,
    dateJoined: record.date_joined,
  };
}
