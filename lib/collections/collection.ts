import type { PropertyError } from "../errors";

/** A collection as the API shows it (CONTRACT §4). */
export interface CollectionView {
  _id: string;
  name: string;
  description: string;
  documents_count: number;
  schema: Record<string, unknown>;
  indexes: IndexSpec[];
  is_system: boolean;
}

/** One entry of a collection's `indexes`, as the client wrote it (normalized). */
export type IndexSpec =
  | { type: "simple"; property: string; unique: boolean }
  | { type: "compound"; properties: string[]; unique: boolean }
  | { type: "text"; property: string; language: string };

export interface CollectionRow {
  id: string;
  name: string;
  description: string;
  schema: Record<string, unknown> | null;
  indexes: IndexSpec[];
  documents_count: number;
}

/** Whose data a domain call works on: the project, and its data size limit (0 = none). */
export interface ProjectScope {
  projectId: string;
  dataSizeLimit: number;
  /**
   * `settings.delete_files` (default true). False: deleting a document keeps its files, marked
   * orphaned, until `settings.orphan_files_ttl` passes (never when unset).
   */
  deleteFiles?: boolean;
  /** `settings.files_size_limit` (0 or unset = none), for files a write makes (processor outputs). */
  filesSizeLimit?: number;
  /** `?process_only=` / `X-Process-Only`: run only these properties' processors (CONTRACT §7). */
  processOnly?: string[];
}

export const COLLECTION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * The schema a collection has when none was given (CONTRACT §4): any object. Stored as `null`
 * (so "without schema" rules, such as one file per part name, still know it) and shown as this.
 */
export function defaultSchema(): Record<string, unknown> {
  return { type: "object", properties: {}, additionalProperties: true };
}

/** True for a schema that says no more than the default (a client saving back what it read). */
export function isDefaultSchema(schema: unknown): boolean {
  return JSON.stringify(schema) === JSON.stringify(defaultSchema());
}

export function collectionView(row: CollectionRow): CollectionView {
  return {
    _id: row.id,
    name: row.name,
    description: row.description,
    documents_count: Number(row.documents_count),
    schema: row.schema ?? defaultSchema(),
    indexes: row.indexes ?? [],
    is_system: false,
  };
}

/** A user collection id: 422 for a system-looking name or a malformed one. */
export function collectionIdErrors(id: string): PropertyError[] {
  if (id.startsWith("_")) return [{ property: "_id", message: "Collection names starting with _ are reserved for system collections" }];
  if (!COLLECTION_ID.test(id)) return [{ property: "_id", message: "must be 1-64 of A-Z a-z 0-9 _ - and start with a letter or digit" }];
  return [];
}
