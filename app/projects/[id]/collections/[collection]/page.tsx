import { CollectionGate } from "@/components/collections/collection-gate";
import { CollectionHeader } from "@/components/collections/collection-header";
import { DocumentsView } from "@/components/collections/documents-view";
import { pageTitle } from "../../titles";

export const dynamic = "force-dynamic";
export async function generateMetadata({ params }: { params: Promise<{ id: string; collection: string }> }) {
  return pageTitle(params, "Documents");
}

export default async function CollectionDocumentsPage({ params }: { params: Promise<{ id: string; collection: string }> }) {
  const { id, collection } = await params;
  const collectionId = decodeURIComponent(collection);
  return (
    <>
      <CollectionHeader projectId={id} collectionId={collectionId} />
      <CollectionGate projectId={id} collectionId={collectionId}>
        <DocumentsView projectId={id} collectionId={collectionId} />
      </CollectionGate>
    </>
  );
}
