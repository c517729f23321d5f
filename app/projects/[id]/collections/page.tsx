import { ComingLater } from "@/components/projects/coming-later";

export const dynamic = "force-dynamic";
export const metadata = { title: "Collections" };

export default async function CollectionsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <ComingLater projectId={id} title="Collections" api="/api/collections/">
      Collections hold your documents, with an optional JSON Schema and indexes. Listing, schema and index editing, and the documents table come in the next dashboard release.
    </ComingLater>
  );
}
