import { HookDetail } from "@/components/hooks/hook-detail";
import { requireUser } from "@/lib/auth/current-user";
import { getUserProject } from "@/lib/projects/projects";
import { pageTitle } from "../../titles";

export const dynamic = "force-dynamic";
export async function generateMetadata({ params }: { params: Promise<{ id: string; hook: string }> }) {
  const { hook } = await params;
  return pageTitle(params, `Hook ${decodeURIComponent(hook)}`);
}

export default async function HookPage({ params }: { params: Promise<{ id: string; hook: string }> }) {
  const user = await requireUser();
  const { id, hook } = await params;
  const { role } = await getUserProject(user._id, id);
  return <HookDetail projectId={id} hookId={decodeURIComponent(hook)} canManage={role !== "member"} />;
}
