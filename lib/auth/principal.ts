/** Who is making a request, once credentials have been checked against the project. */
export type Role = "owner" | "admin" | "member";

/**
 * A collection name, or Deform's access entity. `where` is the collection; the original service
 * also wrote `{what: "collection", what_id: <collection>}` (no `where`) and `{what}` alone (every
 * collection): read through `entryScope` (lib/auth/permission.ts), never field by field.
 */
export type PermissionEntry =
  | string
  | { what: "collection"; where?: string; what_id?: string }
  | { what: "document"; where?: string; what_id?: string };

export interface Allow {
  all: boolean;
  read: PermissionEntry[];
  write: PermissionEntry[];
  update: PermissionEntry[];
  delete: PermissionEntry[];
}

export type Principal =
  | { kind: "token"; tokenId: string; allow: Allow }
  | { kind: "user"; userId: string; email: string; role: Role };

export type Action = "read" | "write" | "update" | "delete";
