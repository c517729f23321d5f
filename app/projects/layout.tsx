import { AppHeader } from "@/components/app-header";
import { requireUser } from "@/lib/auth/current-user";

export const dynamic = "force-dynamic";

// Every page under /projects needs a signed-in user; the header carries sign-out.
export default async function ProjectsLayout({ children }: { children: React.ReactNode }) {
  const user = await requireUser();
  return (
    <>
      <AppHeader email={user.email} />
      {children}
    </>
  );
}
