import { notFound } from "next/navigation";
import { HookEditor } from "@/components/hooks/hook-editor";
import { requireUser } from "@/lib/auth/current-user";
import { getUserProject } from "@/lib/projects/projects";

export const dynamic = "force-dynamic";
export const metadata = { title: "Edit hook" };

export default async function EditHookPage({ params }: { params: Promise<{ id: string; hook: string }> }) {
  const user = await requireUser();
  const { id, hook } = await params;
  const { role } = await getUserProject(user._id, id);
  if (role === "member") notFound();
  return <HookEditor projectId={id} hookId={decodeURIComponent(hook)} />;
}
