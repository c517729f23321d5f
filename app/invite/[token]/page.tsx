import type { Metadata } from "next";
import { AcceptInvitation } from "@/components/invite/accept-invitation";

// The token in the address is a credential: never hand it to another site in a Referer header.
export const metadata: Metadata = { title: "Invitation", referrer: "no-referrer" };

/** `/invite/<token>`: the link of an invitation mail (docs/members.md). */
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return (
    <main className="flex min-h-screen flex-col items-center justify-center px-4 py-10">
      <p className="mb-6 text-xl font-semibold text-slate-900">Arca</p>
      <div className="w-full max-w-sm rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <AcceptInvitation token={token} />
      </div>
    </main>
  );
}
