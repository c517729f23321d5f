import { FilesView } from "@/components/files/files-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Files" };

export default async function FilesPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <FilesView projectId={id} />;
}
