import { DebugLog } from "@/components/usage/debug-log";
import { UsageView } from "@/components/usage/usage-view";
import { pageTitle } from "../titles";

export const dynamic = "force-dynamic";
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  return pageTitle(params, "Usage & logs");
}

export default async function UsagePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <div className="space-y-6">
      <UsageView projectId={id} />
      <DebugLog projectId={id} />
    </div>
  );
}
