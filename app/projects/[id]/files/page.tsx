import { ComingLater } from "@/components/projects/coming-later";

export const dynamic = "force-dynamic";
export const metadata = { title: "Files" };

export default async function FilesPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <ComingLater projectId={id} title="Files" api="/api/collections/_files/documents/">
      Files uploaded to documents or straight into _files, with previews and downloads, come in the next dashboard release.
    </ComingLater>
  );
}
