import { ComingLater } from "@/components/projects/coming-later";

export const dynamic = "force-dynamic";
export const metadata = { title: "Members" };

export default async function MembersPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <ComingLater projectId={id} title="Members" api="/api/collections/_users/documents/">
      Inviting people by e-mail, resending invitations and removing members come in the next dashboard release.
    </ComingLater>
  );
}
