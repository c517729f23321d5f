import { CollectionHeader } from "@/components/collections/collection-header";
import { DocumentsView } from "@/components/collections/documents-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Documents" };

export default async function CollectionDocumentsPage({ params }: { params: Promise<{ id: string; collection: string }> }) {
  const { id, collection } = await params;
  const collectionId = decodeURIComponent(collection);
  return (
    <>
      <CollectionHeader projectId={id} collectionId={collectionId} />
      <DocumentsView projectId={id} collectionId={collectionId} />
    </>
  );
}
