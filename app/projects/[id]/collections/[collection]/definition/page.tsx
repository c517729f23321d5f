import { CollectionDefinitionView } from "@/components/collections/collection-definition";
import { CollectionGate } from "@/components/collections/collection-gate";
import { CollectionHeader } from "@/components/collections/collection-header";
import { requireUser } from "@/lib/auth/current-user";
import { getUserProject } from "@/lib/projects/projects";
import { pageTitle } from "../../../titles";

export const dynamic = "force-dynamic";
export async function generateMetadata({ params }: { params: Promise<{ id: string; collection: string }> }) {
  return pageTitle(params, "Schema & indexes");
}

export default async function CollectionDefinitionPage({ params }: { params: Promise<{ id: string; collection: string }> }) {
  const user = await requireUser();
  const { id, collection } = await params;
  const { role } = await getUserProject(user._id, id);
  const collectionId = decodeURIComponent(collection);
  return (
    <>
      <CollectionHeader projectId={id} collectionId={collectionId} />
      <CollectionGate projectId={id} collectionId={collectionId}>
        <CollectionDefinitionView projectId={id} collectionId={collectionId} canManage={role !== "member"} />
      </CollectionGate>
    </>
  );
}
