import { FilesView } from "@/components/files/files-view";
import { pageTitle } from "../titles";

export const dynamic = "force-dynamic";
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  return pageTitle(params, "Files");
}

export default async function FilesPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <FilesView projectId={id} />;
}
