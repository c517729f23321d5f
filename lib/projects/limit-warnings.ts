import { query, queryOne } from "../db/query";
import { sql } from "../db/sql";
import { sendMail } from "../mail/send-mail";
import { limitWarningMail } from "../mail/limit-warning-mail";
import { writeNotification } from "../members/notifications";
import { projectLink } from "../members/public-url";

/**
 * CONTRACT §2: at 80 % of a size limit a notification is written and the owner mailed, once.
 * Run after a write of a project with a limit has committed. Which limit was warned about is
 * claimed in one UPDATE (`limit_warnings`), so concurrent writers or processes warn once; the mark
 * goes when usage falls back below 80 % or the limit changes, so the next crossing warns again.
 */
const THRESHOLD = 0.8;
const COUNTERS = [
  { counter: "data_size", limit: "data_size_limit", what: "Data" },
  { counter: "files_size", limit: "files_size_limit", what: "Files" },
] as const;

export async function warnNearLimits(projectId: string): Promise<void> {
  const row = await queryOne<{ name: string; settings: Record<string, unknown>; data_size: number; files_size: number; warnings: Record<string, number>; email: string | null }>(
    sql`SELECT p.name, p.settings, t.data_size, t.files_size, p.limit_warnings AS warnings, u.email
        FROM projects p JOIN project_totals t ON t.project_id = p.id LEFT JOIN users u ON u.id = p.owner_id
        WHERE p.id = ${projectId}`,
  );
  if (!row) return;
  for (const { counter, limit: limitKey, what } of COUNTERS) {
    const limit = Number(row.settings[limitKey] ?? 0);
    const used = Number(row[counter]);
    const warnedAt = row.warnings[counter];
    if (limit > 0 && used >= THRESHOLD * limit) {
      if (warnedAt === limit) continue;
      const claimed = await query(
        sql`UPDATE projects SET limit_warnings = limit_warnings || jsonb_build_object(${counter}::text, ${limit}::bigint)
            WHERE id = ${projectId} AND (limit_warnings->>${counter}) IS DISTINCT FROM ${String(limit)} RETURNING 1`,
      );
      if (!claimed.length) continue;
      const percent = Math.floor((100 * used) / limit);
      await writeNotification(projectId, {
        author: "Arca",
        subject: `${what} size at ${percent} % of the limit`,
        message: `The project uses ${used} of its ${limit} bytes ${what.toLowerCase()} size limit; writes past the limit are refused (402).`,
      });
      if (row.email)
        await sendMail({ to: row.email, ...limitWarningMail({ projectName: row.name, projectId, what, used, limit, link: projectLink(projectId) }) }).catch((error) =>
          console.error(`limits: mail to the owner of ${projectId} failed: ${(error as Error).message}`),
        );
    } else if (warnedAt !== undefined) {
      await query(sql`UPDATE projects SET limit_warnings = limit_warnings - ${counter}::text WHERE id = ${projectId}`);
    }
  }
}
