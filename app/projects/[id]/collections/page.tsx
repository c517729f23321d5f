import { CollectionsView } from "@/components/collections/collections-view";
import { requireUser } from "@/lib/auth/current-user";
import { getUserProject } from "@/lib/projects/projects";
import { pageTitle } from "../titles";

export const dynamic = "force-dynamic";
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  return pageTitle(params, "Collections");
}

export default async function CollectionsPage({ params }: { params: Promise<{ id: string }> }) {
  const user = await requireUser();
  const { id } = await params;
  const { role } = await getUserProject(user._id, id);
  return <CollectionsView projectId={id} canManage={role !== "member"} />;
}
