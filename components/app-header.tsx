import Link from "next/link";
import { signOutAction } from "@/lib/auth/dashboard-actions";
import { ShortcutsButton, ThemeToggle } from "./theme-toggle";

/** The bar over every signed-in page: home link, who is signed in, sign-out. */
export function AppHeader({ email }: { email: string }) {
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl items-center justify-between gap-3 px-4 py-3">
        <Link href="/projects" className="flex items-center gap-2 font-semibold text-slate-900">
          <span aria-hidden className="grid h-7 w-7 place-items-center rounded-md bg-indigo-600 text-xs font-bold text-white">
            A
          </span>
          Arca
        </Link>
        <div className="flex min-w-0 items-center gap-3">
          <span className="hidden truncate text-sm text-slate-600 sm:inline" title={email}>
            {email}
          </span>
          <ShortcutsButton />
          <ThemeToggle />
          <form action={signOutAction}>
            <button
              type="submit"
              className="rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-600"
            >
              Sign out
            </button>
          </form>
        </div>
      </div>
    </header>
  );
}
