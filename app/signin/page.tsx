import Link from "next/link";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { AuthShell } from "@/components/auth/auth-shell";
import { currentUser } from "@/lib/auth/current-user";
import { safeRedirect } from "@/lib/auth/safe-redirect";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  // Only a path on this site: never an open redirect.
  const callbackUrl = typeof params.callbackUrl === "string" ? safeRedirect(params.callbackUrl) : undefined;
  if (await currentUser()) redirect(callbackUrl ?? "/projects");
  const notice = params.error ? "Please sign in again." : undefined;
  return (
    <AuthShell
      title="Sign in to Arca"
      footer={
        <>
          No account yet?{" "}
          <Link href="/signup" className="font-medium text-indigo-700 hover:underline">
            Create one
          </Link>
        </>
      }
    >
      <SignInForm callbackUrl={callbackUrl} notice={notice} />
    </AuthShell>
  );
}
