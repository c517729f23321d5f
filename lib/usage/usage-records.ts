import { query } from "../db/query";
import { sql } from "../db/sql";
import { notFound } from "../errors";
import { formatFileDate } from "../files/file-record";

/** A `_usage` record (CONTRACT §10): one per project and hour, `_id` the hour (`2026-11-22T03`). */
export interface UsageRecord {
  [key: string]: unknown;
  _id: string;
  date: string;
  data_size: number;
  files_size: number;
  requests: number;
  bytes_in: number;
  bytes_out: number;
}

interface UsageRow {
  hour: Date;
  requests: string;
  bytes_in: string;
  bytes_out: string;
  data_size: string;
  files_size: string;
}

/** Every hour of the project's usage (a project has at most 24 a day: small enough to list in memory). */
export async function listUsage(projectId: string): Promise<UsageRecord[]> {
  const rows = await query<UsageRow>(sql`SELECT hour, requests, bytes_in, bytes_out, data_size, files_size FROM usage WHERE project_id = ${projectId} ORDER BY hour`);
  return rows.map(usageRecord);
}

export async function getUsage(projectId: string, id: string): Promise<UsageRecord> {
  const hour = hourOfId(id);
  const rows = hour
    ? await query<UsageRow>(sql`SELECT hour, requests, bytes_in, bytes_out, data_size, files_size FROM usage WHERE project_id = ${projectId} AND hour = ${hour.toISOString()}`)
    : [];
  if (!rows[0]) throw notFound("Document not found.");
  return usageRecord(rows[0]);
}

function usageRecord(row: UsageRow): UsageRecord {
  return {
    _id: row.hour.toISOString().slice(0, 13),
    date: formatFileDate(row.hour),
    data_size: Number(row.data_size),
    files_size: Number(row.files_size),
    requests: Number(row.requests),
    bytes_in: Number(row.bytes_in),
    bytes_out: Number(row.bytes_out),
  };
}

/** `2026-11-22T03` -> that hour (UTC); anything else -> undefined. */
function hourOfId(id: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}$/.test(id)) return undefined;
  const date = new Date(`${id}:00:00Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 13) !== id ? undefined : date;
}
