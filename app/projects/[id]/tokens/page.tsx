import { TokensView } from "@/components/tokens/tokens-view";
import { requireUser } from "@/lib/auth/current-user";
import { getUserProject } from "@/lib/projects/projects";
import { pageTitle } from "../titles";

export const dynamic = "force-dynamic";
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  return pageTitle(params, "Tokens");
}

export default async function TokensPage({ params }: { params: Promise<{ id: string }> }) {
  const user = await requireUser();
  const { id } = await params;
  const { role } = await getUserProject(user._id, id);
  return <TokensView projectId={id} canManage={role !== "member"} />;
}
