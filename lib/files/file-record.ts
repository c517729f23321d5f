import { withDatetimeOperands } from "../query/datetime-operands";

/**
 * The file record of `_files` (CONTRACT §6, seed "File record"): exactly nine keys, `size` in
 * bytes, datetimes `YYYY-MM-DDThh:mm:ss.ffZ` (UTC, two fractional digits).
 *
 * A document's file property holds a copy of this record, written with the upload. The `files`
 * table is the authority: a property path and `_files` both answer from it, and content is only
 * ever looked up by (project, collection, document, file id), so a record forged into a
 * document's JSON cannot reach another document's bytes.
 */
export interface FileRow {
  project_id: string;
  id: string;
  collection_id: string;
  document_id: string;
  property: string;
  name: string;
  content_type: string;
  size: number;
  md5: string;
  blob_key: string;
  date_created: Date;
  last_access: Date;
}

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

/** The collection id of files uploaded straight into `_files` (their `document_id` is ""). */
export const FILES_COLLECTION = "_files";

export const FILE_COLUMNS =
  "project_id, id, collection_id, document_id, property, name, content_type, size, md5, blob_key, date_created, last_access";

export function fileRecord(row: FileRow): FileRecord {
  return {
    _id: row.id,
    collection_id: row.collection_id,
    content_type: row.content_type,
    date_created: formatFileDate(row.date_created),
    document_id: row.document_id,
    last_access: formatFileDate(row.last_access),
    md5: row.md5,
    name: row.name,
    size: Number(row.size),
  };
}

/**
 * The same record built in SQL from a `files` row aliased `alias` (for outbox events written in
 * the statement that deletes the row). Trusted text: `alias` is always a literal of our code.
 */
export function fileRecordSql(alias: string): string {
  const date = (column: string) => `to_char(${alias}.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.FF2"Z"')`;
  return `jsonb_build_object('_id', ${alias}.id, 'collection_id', ${alias}.collection_id, 'content_type', ${alias}.content_type,
    'date_created', ${date("date_created")}, 'document_id', ${alias}.document_id, 'last_access', ${date("last_access")},
    'md5', ${alias}.md5, 'name', ${alias}.name, 'size', ${alias}.size)`;
}

/** `2024-05-01T12:34:56.78Z`: centiseconds, truncated (never rounded into the next second). */
/** A filter over `_files` with its datetime operands in the records' form (lib/query/datetime-operands.ts). */
export function filesFilter<T extends Record<string, unknown> | undefined>(filter: T): T {
  return withDatetimeOperands(filter, [["date_created"], ["last_access"]], formatFileDate) as T;
}

export function formatFileDate(date: Date): string {
  const iso = date.toISOString(); // 2024-05-01T12:34:56.789Z
  return `${iso.slice(0, 22)}Z`;
}

/** Something in a document that looks like a file record (the shape, not the authority). */
export function isFileRecordShape(value: unknown): value is FileRecord {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return typeof v._id === "string" && typeof v.md5 === "string" && typeof v.content_type === "string" && typeof v.collection_id === "string" && "document_id" in v;
}

/** The file records a document holds, at any depth. */
export function fileRecordsIn(doc: unknown, out: FileRecord[] = []): FileRecord[] {
  if (!doc || typeof doc !== "object") return out;
  if (Array.isArray(doc)) {
    for (const item of doc) fileRecordsIn(item, out);
    return out;
  }
  if (isFileRecordShape(doc)) {
    out.push(doc);
    return out;
  }
  for (const value of Object.values(doc)) if (value && typeof value === "object") fileRecordsIn(value, out);
  return out;
}

/** The `_id`s of every file record a document holds, at any depth. */
export function fileIdsIn(doc: unknown): Set<string> {
  return new Set(fileRecordsIn(doc).map((record) => record._id));
}
