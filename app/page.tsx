import { redirect } from "next/navigation";
import { currentUser } from "@/lib/auth/current-user";

export const dynamic = "force-dynamic";

// The dashboard's front door: projects when signed in, else the sign-in page.
export default async function Home() {
  redirect((await currentUser()) ? "/projects" : "/signin");
}
