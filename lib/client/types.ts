/** The API's shapes as the dashboard reads them (CONTRACT §2, §3, §4, §9). */
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pages: number;
  per_page: number;
}

export interface User {
  _id: string;
  email: string;
  name: string;
}

export interface ProjectSettings {
  debug: boolean;
  files_size_limit: number;
  data_size_limit: number;
  delete_files: boolean;
  orphan_files_ttl: string;
  /** How long the change feed can replay (CONTRACT §13). */
  events_ttl: string;
  /** How long `_hooks_history` keeps finished deliveries (CONTRACT §8). */
  hooks_history_ttl: string;
}

export interface Project {
  _id: string;
  name: string;
  settings: ProjectSettings;
  status: { files_size: number; data_size: number; is_active: boolean };
}

export interface ProjectPatch {
  name?: string;
  settings?: Partial<ProjectSettings>;
  status?: { is_active: boolean };
}

export type TokenAction = "read" | "write" | "update" | "delete";
export const TOKEN_ACTIONS: readonly TokenAction[] = ["read", "write", "update", "delete"];

export type PermissionEntry = string | { what: "collection" | "document"; where?: string; what_id?: string };

export interface TokenAllow {
  all: boolean;
  read: PermissionEntry[];
  write: PermissionEntry[];
  update: PermissionEntry[];
  delete: PermissionEntry[];
}

export interface Token {
  _id: string;
  name: string;
  is_active: boolean;
  permission: { allow: TokenAllow };
}

export interface CreatedToken extends Token {
  /** The secret: in the creation answer only. */
  token: string;
}

export interface Collection {
  _id: string;
  name?: string;
  documents_count?: number;
  is_system?: boolean;
}

export type CollectionIndex =
  | { type: "simple"; property: string; unique?: boolean }
  | { type: "compound"; properties: string[]; unique?: boolean }
  | { type: "text"; property: string; language?: string };

/** A collection's whole definition (CONTRACT §4). */
export interface CollectionDefinition {
  _id: string;
  name: string;
  description: string;
  documents_count: number;
  schema: Record<string, unknown> | null;
  indexes: CollectionIndex[];
  is_system: boolean;
}

export interface CollectionInput {
  name: string;
  description: string;
  schema: Record<string, unknown> | null;
  indexes: CollectionIndex[];
}

/** A document: `_id` plus whatever the collection holds. */
export type ArcaDocument = { _id: string } & Record<string, unknown>;

/** A `_files` record: exactly these nine keys (CONTRACT §6). */
export interface FileRecord {
  _id: string;
  collection_id: string;
  content_type: string;
  date_created: string;
  document_id: string;
  last_access: string;
  md5: string;
  name: string;
  size: number;
}

export type MemberRole = "owner" | "admin" | "member";

/** A `_users` record (docs/members.md). */
export interface Member {
  _id: string;
  is_active: boolean;
  role: MemberRole;
  date_joined: string | null;
}

/** An invitation not yet accepted: no join date yet. */
export const isPendingMember = (member: Pick<Member, "date_joined">) => member.date_joined === null;
