import { HooksView } from "@/components/hooks/hooks-view";
import { requireUser } from "@/lib/auth/current-user";
import { getUserProject } from "@/lib/projects/projects";
import { pageTitle } from "../titles";

export const dynamic = "force-dynamic";
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  return pageTitle(params, "Hooks");
}

export default async function HooksPage({ params }: { params: Promise<{ id: string }> }) {
  const user = await requireUser();
  const { id } = await params;
  const { role } = await getUserProject(user._id, id);
  return <HooksView projectId={id} canManage={role !== "member"} />;
}
