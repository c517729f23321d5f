import { query, queryOne, type Queryable } from "../db/query";
import { sql } from "../db/sql";
import { sendMail } from "../mail/send-mail";
import { limitWarningMail } from "../mail/limit-warning-mail";
import { writeNotification } from "../members/notifications";
import { projectLink } from "../members/public-url";

/**
 * CONTRACT §2: at 80 % of a size limit a notification is written and the owner mailed, once.
 * `claimLimitWarnings` runs inside every write of a project with a limit, after the write and
 * while the writer holds the project's row lock (lib/projects/counters.ts): it sees usage exactly
 * as that write leaves it, and writers take turns, so each crossing is seen by exactly one of
 * them, whatever the timing. The notification commits with the write; the mail goes after commit.
 * The mark (`limit_warnings`) goes when usage falls back below 80 % or the limit changes, so the
 * next crossing warns again.
 */
const THRESHOLD = 0.8;
const COUNTERS = [
  { counter: "data_size", limit: "data_size_limit", what: "Data" },
  { counter: "files_size", limit: "files_size_limit", what: "Files" },
] as const;

export interface LimitWarning {
  projectId: string;
  projectName: string;
  ownerEmail: string | null;
  what: string;
  used: number;
  limit: number;
}

/** In the writer's transaction, holding the project row: marks and notes new crossings. */
export async function claimLimitWarnings(db: Queryable, projectId: string): Promise<LimitWarning[]> {
  const row = await queryOne<{ name: string; settings: Record<string, unknown>; data_size: number; files_size: number; warnings: Record<string, number>; email: string | null }>(
    sql`SELECT p.name, p.settings, t.data_size, t.files_size, p.limit_warnings AS warnings, u.email
        FROM projects p JOIN project_totals t ON t.project_id = p.id LEFT JOIN users u ON u.id = p.owner_id
        WHERE p.id = ${projectId}`,
    db,
  );
  if (!row) return [];
  const marks = { ...row.warnings };
  const warnings: LimitWarning[] = [];
  for (const { counter, limit: limitKey, what } of COUNTERS) {
    const limit = Number(row.settings[limitKey] ?? 0);
    const used = Number(row[counter]);
    if (limit > 0 && used >= THRESHOLD * limit) {
      if (marks[counter] === limit) continue;
      marks[counter] = limit;
      warnings.push({ projectId, projectName: row.name, ownerEmail: row.email, what, used, limit });
    } else delete marks[counter];
  }
  if (JSON.stringify(marks) === JSON.stringify(row.warnings)) return [];
  await query(sql`UPDATE projects SET limit_warnings = ${JSON.stringify(marks)}::jsonb WHERE id = ${projectId}`, db);
  for (const w of warnings)
    await writeNotification(
      projectId,
      {
        author: "Arca",
        subject: `${w.what} size at ${Math.floor((100 * w.used) / w.limit)} % of the limit`,
        message: `The project uses ${w.used} of its ${w.limit} bytes ${w.what.toLowerCase()} size limit; writes past the limit are refused (402).`,
      },
      db,
    );
  return warnings;
}

/** After commit: mails the owner of each warning; a failed mail is logged, the notification stays. */
export function mailLimitWarnings(warnings: LimitWarning[]): void {
  for (const w of warnings) {
    if (!w.ownerEmail) continue;
    const mail = limitWarningMail({ projectName: w.projectName, projectId: w.projectId, what: w.what, used: w.used, limit: w.limit, link: projectLink(w.projectId) });
    sendMail({ to: w.ownerEmail, ...mail }).catch((error) => console.error(`limits: mail to the owner of ${w.projectId} failed: ${(error as Error).message}`));
  }
}
