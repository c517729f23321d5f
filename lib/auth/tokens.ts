import { conflict, forbidden, notFound, validationError } from "../errors";
import { prisma } from "../db/pool";
import { query, transaction } from "../db/query";
import { sql } from "../db/sql";
import { whileNarrowingAccess } from "./auth-cache";
import { coversPermission, normalizePermission } from "./permission";
import type { Allow } from "./principal";
import { generateId, hashSecret, randomSecret } from "./secrets";

/** Project tokens, the system collection `_tokens` (CONTRACT §9). */
export interface TokenView {
  _id: string;
  name: string;
  is_active: boolean;
  permission: { allow: Allow };
}

const TOKEN_ID = /^[A-Za-z0-9_.@-]{1,64}$/;

interface TokenRow {
  id: string;
  name: string;
  isActive: boolean;
  permission: unknown;
}

function tokenView(row: TokenRow): TokenView {
  return { _id: row.id, name: row.name, is_active: row.isActive, permission: { allow: normalizePermission(row.permission) } };
}

export async function listTokens(projectId: string): Promise<TokenView[]> {
  const rows = await prisma().token.findMany({ where: { projectId }, orderBy: { id: "asc" } });
  return rows.map(tokenView);
}

/**
 * A token addressed by its `_id` or by its secret (CONTRACT §9: matched by hash). The view's
 * `_id` is the key the client used, so an answer never tells a secret's token id either.
 */
export async function getToken(projectId: string, key: string): Promise<TokenView> {
  const row = await findTokenRow(projectId, key);
  if (!row) throw notFound("Document not found.");
  return { ...tokenView(row), _id: key };
}

/** The stored id of the token `key` names (its id, else its secret), or undefined. */
export async function tokenIdOf(projectId: string, key: string): Promise<string | undefined> {
  return (await findTokenRow(projectId, key))?.id;
}

async function findTokenRow(projectId: string, key: string) {
  const byId = await prisma().token.findUnique({ where: { projectId_id: { projectId, id: key } } });
  if (byId) return byId;
  // Project-scoped: another project's secret addresses nothing here.
  const bySecret = await prisma().token.findUnique({ where: { secretHash: hashSecret(key) } });
  return bySecret?.projectId === projectId ? bySecret : undefined;
}

/** Creates a token; the secret is in this answer only (`token`) and is stored as a hash. */
export async function createToken(
  projectId: string,
  body: Record<string, unknown>,
  pathId?: string,
  grantor?: Allow,
): Promise<TokenView & { token: string }> {
  if (pathId !== undefined && body._id !== undefined && body._id !== pathId) throw invalid("_id", "must match the id in the path");
  if (body._id !== undefined && (typeof body._id !== "string" || !TOKEN_ID.test(body._id))) throw invalid("_id", "must be 1-64 of A-Z a-z 0-9 _ . @ -");
  const id = pathId ?? (body._id as string | undefined) ?? generateId();
  if (!TOKEN_ID.test(id)) throw invalid("_id", "must be 1-64 of A-Z a-z 0-9 _ . @ -");
  const fields = parseTokenFields(body, { name: "", isActive: true, permission: normalizePermission(undefined) });
  checkGrant(grantor, fields.permission);
  const secret = randomSecret(32);
  // A key that is a live token's secret addresses that token (§9), so it is taken as its id is:
  // a record under it would show the secret in lists and take its GET, PATCH and DELETE.
  if (await tokenIdOf(projectId, id)) throw conflict("Document with this key already exists.");
  const row = await prisma().token.create({
    data: { projectId, id, name: fields.name, isActive: fields.isActive, permission: fields.permission as object, secretHash: hashSecret(secret) },
  });
  return { ...tokenView(row), token: secret };
}

/** PATCH (merge) or PUT (replace): the secret never changes; a new one means a new token. */
export async function updateToken(
  projectId: string,
  key: string,
  body: Record<string, unknown>,
  mode: "merge" | "replace",
  grantor?: Allow,
): Promise<TokenView> {
  const id = await tokenIdOf(projectId, key);
  if (!id) throw notFound("Document not found.");
  // The body's `_id`, when sent, is the path's key (a record read back through it shows that key).
  // Accepting the token's id as well under a secret would tell a caller which id the secret has.
  if (body._id !== undefined && body._id !== key)
    throw invalid("_id", mode === "replace" ? "must match the id in the path" : "cannot be changed");
  // Merged with the token as it is under its lock: concurrent PATCHes of different keys (a
  // deactivation, a rename) both take; the later never writes back what the earlier read.
  return whileNarrowingAccess(() =>
    transaction(async (client) => {
      const [row] = await query<{ id: string; name: string; is_active: boolean; permission: unknown }>(
        sql`SELECT id, name, is_active, permission FROM tokens WHERE project_id = ${projectId} AND id = ${id} FOR UPDATE`,
        client,
      );
      if (!row) throw notFound("Document not found.");
      const current = tokenView({ id: row.id, name: row.name, isActive: row.is_active, permission: row.permission });
      const base =
        mode === "merge"
          ? { name: current.name, isActive: current.is_active, permission: current.permission.allow }
          : { name: "", isActive: true, permission: normalizePermission(undefined) };
      const fields = parseTokenFields(body, base);
      // A change of rights, or turning a token back on, is bound by the grantor's: renaming or
      // deactivating a wider token is not a grant, reactivating one is.
      const reactivated = fields.isActive && !current.is_active;
      if (reactivated || JSON.stringify(fields.permission) !== JSON.stringify(current.permission.allow)) checkGrant(grantor, fields.permission);
      await query(
        sql`UPDATE tokens SET name = ${fields.name}, is_active = ${fields.isActive}, permission = ${JSON.stringify(fields.permission)}::jsonb
            WHERE project_id = ${projectId} AND id = ${id}`,
        client,
      );
      return { ...tokenView({ id, name: fields.name, isActive: fields.isActive, permission: fields.permission }), _id: key };
    }),
  );
}

export async function deleteToken(projectId: string, key: string): Promise<void> {
  const id = await tokenIdOf(projectId, key);
  const { count } = id ? await whileNarrowingAccess(() => prisma().token.deleteMany({ where: { projectId, id } })) : { count: 0 };
  if (!count) throw notFound("Document not found.");
}

/** `grantor`: the rights of the token making the change (a person's session has none to exceed). */
function checkGrant(grantor: Allow | undefined, wanted: Allow): void {
  if (grantor && !coversPermission(grantor, wanted)) throw forbidden("A token cannot grant more than it holds");
}

function parseTokenFields(body: Record<string, unknown>, base: { name: string; isActive: boolean; permission: Allow }) {
  const out = { ...base };
  for (const [key, value] of Object.entries(body)) {
    if (key === "_id" || key === "token") continue;
    if (key === "name") {
      if (typeof value !== "string") throw invalid("name", "must be a string");
      if (value.length > 200) throw invalid("name", "must be at most 200 characters");
      out.name = value;
    } else if (key === "is_active") {
      if (typeof value !== "boolean") throw invalid("is_active", "must be a boolean");
      out.isActive = value;
    } else if (key === "permission") out.permission = normalizePermission(value);
    else throw invalid(key, "is not a token property");
  }
  return out;
}

function invalid(property: string, message: string) {
  return validationError("Validation error", [{ property, message }]);
}
