import Link from "next/link";
import { redirect } from "next/navigation";
import { AuthShell } from "@/components/auth/auth-shell";
import { SignUpForm } from "@/components/auth/sign-up-form";
import { currentUser } from "@/lib/auth/current-user";

export const dynamic = "force-dynamic";
export const metadata = { title: "Create an account" };

export default async function SignUpPage() {
  if (await currentUser()) redirect("/projects");
  return (
    <AuthShell
      title="Create your Arca account"
      footer={
        <>
          Already have an account?{" "}
          <Link href="/signin" className="font-medium text-indigo-700 hover:underline">
            Sign in
          </Link>
        </>
      }
    >
      <SignUpForm />
    </AuthShell>
  );
}
