import { prisma } from "../db/pool";
import type { ProjectAccess } from "./projects";

/** The user's role in each project they are an active member of, for the dashboard's project list. */
export async function userProjectRoles(userId: string): Promise<Record<string, ProjectAccess["role"]>> {
  const rows = await prisma().member.findMany({ where: { userId, isActive: true }, select: { projectId: true, role: true } });
  return Object.fromEntries(rows.map((row) => [row.projectId, row.role as ProjectAccess["role"]]));
}
