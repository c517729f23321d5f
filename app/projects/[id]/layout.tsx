import { notFound } from "next/navigation";
import { ProjectNav } from "@/components/projects/project-nav";
import { requireUser } from "@/lib/auth/current-user";
import { getUserProject } from "@/lib/projects/projects";

export const dynamic = "force-dynamic";

// A project the user is not a member of looks exactly like one that does not exist.
export default async function ProjectLayout({ children, params }: { children: React.ReactNode; params: Promise<{ id: string }> }) {
  const user = await requireUser();
  const { id } = await params;
  const access = await getUserProject(user._id, id).catch(() => undefined);
  if (!access) notFound();
  return (
    <main className="mx-auto max-w-6xl px-4 py-6">
      <ProjectNav projectId={access.project._id} projectName={access.project.name} isActive={access.project.status.is_active} />
      <div className="mt-6">{children}</div>
    </main>
  );
}
