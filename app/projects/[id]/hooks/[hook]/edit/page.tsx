import { notFound } from "next/navigation";
import { HookEditor } from "@/components/hooks/hook-editor";
import { requireUser } from "@/lib/auth/current-user";
import { getUserProject } from "@/lib/projects/projects";
import { pageTitle } from "../../../titles";

export const dynamic = "force-dynamic";
export async function generateMetadata({ params }: { params: Promise<{ id: string; hook: string }> }) {
  const { hook } = await params;
  return pageTitle(params, `Edit hook ${decodeURIComponent(hook)}`);
}

export default async function EditHookPage({ params }: { params: Promise<{ id: string; hook: string }> }) {
  const user = await requireUser();
  const { id, hook } = await params;
  const { role } = await getUserProject(user._id, id);
  if (role === "member") notFound();
  return <HookEditor projectId={id} hookId={decodeURIComponent(hook)} />;
}
