import { CollectionGate } from "@/components/collections/collection-gate";
import { CollectionHeader } from "@/components/collections/collection-header";
import { DocumentsView } from "@/components/collections/documents-view";
import { requireUser } from "@/lib/auth/current-user";
import { getUserProject } from "@/lib/projects/projects";
import { pageTitle } from "../../titles";

export const dynamic = "force-dynamic";
export async function generateMetadata({ params }: { params: Promise<{ id: string; collection: string }> }) {
  return pageTitle(params, "Documents");
}

export default async function CollectionDocumentsPage({ params }: { params: Promise<{ id: string; collection: string }> }) {
  const user = await requireUser();
  const { id, collection } = await params;
  const collectionId = decodeURIComponent(collection);
  const { role } = await getUserProject(user._id, id);
  return (
    <>
      <CollectionHeader projectId={id} collectionId={collectionId} />
      <CollectionGate projectId={id} collectionId={collectionId}>
        <DocumentsView projectId={id} collectionId={collectionId} canManage={role !== "member"} />
      </CollectionGate>
    </>
  );
}
