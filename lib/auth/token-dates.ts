import { prisma } from "../db/pool";
import { forbidden } from "../errors";
import { can } from "./can";
import type { Principal } from "./principal";

/** When a token was made and last used: the dashboard's, never part of a `_tokens` record (CONTRACT §9). */
export interface TokenDates {
  created_at: string;
  /** Null: not used since the column exists (or not yet flushed, see token-last-used.ts). */
  last_used_at: string | null;
}

/**
 * The dates of a project's tokens, by token id, for whoever may read `_tokens` (the API's own
 * rule for listing them: owners, admins, members; a token only if granted `_tokens`).
 */
export async function tokenDates(projectId: string, principal: Principal): Promise<Record<string, TokenDates>> {
  if (!can(principal, "read", { collection: "_tokens" })) throw forbidden("Not allowed to read in collection _tokens");
  const rows = await prisma().token.findMany({ where: { projectId }, select: { id: true, createdAt: true, lastUsedAt: true } });
  return Object.fromEntries(rows.map((row) => [row.id, { created_at: row.createdAt.toISOString(), last_used_at: row.lastUsedAt?.toISOString() ?? null }]));
}
