import { notFound } from "next/navigation";
import { HookEditor } from "@/components/hooks/hook-editor";
import { requireUser } from "@/lib/auth/current-user";
import { getUserProject } from "@/lib/projects/projects";
import { pageTitle } from "../../titles";

export const dynamic = "force-dynamic";
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  return pageTitle(params, "New hook");
}

// Managing hooks is administration: members read them but get no form.
export default async function NewHookPage({ params }: { params: Promise<{ id: string }> }) {
  const user = await requireUser();
  const { id } = await params;
  const { role } = await getUserProject(user._id, id);
  if (role === "member") notFound();
  return <HookEditor projectId={id} />;
}
