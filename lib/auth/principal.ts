/** Who is making a request, once credentials have been checked against the project. */
export type Role = "owner" | "admin" | "member";

export type PermissionEntry =
  | string
  | { what: "collection"; where: string; what_id?: string }
  | { what: "document"; where: string; what_id?: string };

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
