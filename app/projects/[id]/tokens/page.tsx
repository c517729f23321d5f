import { TokensView } from "@/components/tokens/tokens-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Tokens" };

export default async function TokensPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <TokensView projectId={id} />;
}
