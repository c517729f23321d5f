import { prisma } from "../db/pool";

/** How many projects the user owns (the per-owner limit counts these, not memberships). */
export async function countOwnedProjects(userId: string): Promise<number> {
  return prisma().project.count({ where: { ownerId: userId } });
}
