import { notFound } from "../errors";
import { prisma } from "../db/pool";
import { query, type Queryable } from "../db/query";
import { sql } from "../db/sql";
import { generateId } from "../auth/secrets";

/**
 * The project's notifications, the system collection `_notification` (CONTRACT §10): written by
 * Arca (invitations, joins), read and deleted by the project, never written through the API.
 */
export interface NotificationView {
  _id: string;
  author: string;
  subject: string;
  message: string;
  date_sent: string;
}

export interface NewNotification {
  author: string;
  subject: string;
  message: string;
}

/** Written inside the caller's transaction when it has one, so it stands or falls with the change. */
export async function writeNotification(projectId: string, input: NewNotification, db?: Queryable): Promise<void> {
  await query(
    sql`INSERT INTO notifications (project_id, id, author, subject, message)
        VALUES (${projectId}, ${generateId()}, ${input.author}, ${input.subject}, ${input.message})`,
    db,
  );
}

export async function listNotifications(projectId: string): Promise<NotificationView[]> {
  const rows = await prisma().notification.findMany({ where: { projectId }, orderBy: { id: "asc" } });
  return rows.map(notificationView);
}

export async function getNotification(projectId: string, id: string): Promise<NotificationView> {
  const row = await prisma().notification.findUnique({ where: { projectId_id: { projectId, id } } });
  if (!row) throw notFound("Document not found.");
  return notificationView(row);
}

export async function deleteNotification(projectId: string, id: string): Promise<void> {
  const { count } = await prisma().notification.deleteMany({ where: { projectId, id } });
  if (!count) throw notFound("Document not found.");
}

/** Deletes the given notifications (by `_id`) of the project; answers how many went. */
export async function deleteNotifications(projectId: string, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  const { count } = await prisma().notification.deleteMany({ where: { projectId, id: { in: ids } } });
  return count;
}

function notificationView(row: { id: string; author: string; subject: string; message: string; dateSent: Date }): NotificationView {
  return { _id: row.id, author: row.author, subject: row.subject, message: row.message, date_sent: row.dateSent.toISOString() };
}
