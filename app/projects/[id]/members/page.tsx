import { MembersView } from "@/components/members/members-view";
import { requireUser } from "@/lib/auth/current-user";
import { getUserProject } from "@/lib/projects/projects";
import { pageTitle } from "../titles";

export const dynamic = "force-dynamic";
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  return pageTitle(params, "Members");
}

export default async function MembersPage({ params }: { params: Promise<{ id: string }> }) {
  const user = await requireUser();
  const { id } = await params;
  const { role } = await getUserProject(user._id, id);
  return <MembersView projectId={id} myEmail={user.email} myRole={role} />;
}
