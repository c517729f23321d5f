import { ProjectsView } from "@/components/projects/projects-view";
import { requireUser } from "@/lib/auth/current-user";
import { countOwnedProjects } from "@/lib/projects/count-owned-projects";
import { MAX_PROJECTS_PER_OWNER } from "@/lib/projects/project";
import { userProjectRoles } from "@/lib/projects/user-project-roles";

export const dynamic = "force-dynamic";
export const metadata = { title: "Projects" };

export default async function ProjectsPage() {
  const user = await requireUser();
  // The limit counts owned projects only; the list also shows projects the user is a member of.
  const [owned, roles] = await Promise.all([countOwnedProjects(user._id), userProjectRoles(user._id)]);
  return <ProjectsView ownedCount={owned} limit={MAX_PROJECTS_PER_OWNER} roles={roles} />;
}
