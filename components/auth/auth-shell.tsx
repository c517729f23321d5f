import Link from "next/link";

/** The centred card the sign-in and sign-up pages share. */
export function AuthShell({ title, children, footer }: { title: string; children: React.ReactNode; footer?: React.ReactNode }) {
  return (
    <main className="flex min-h-screen flex-col items-center justify-center px-4 py-10">
      <Link href="/" className="mb-6 flex items-center gap-2 text-xl font-semibold text-slate-900">
        <span aria-hidden className="grid h-8 w-8 place-items-center rounded-md bg-indigo-600 text-sm font-bold text-white">
          A
        </span>
        Arca
      </Link>
      <div className="w-full max-w-sm rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <h1 className="mb-5 text-lg font-semibold text-slate-900">{title}</h1>
        {children}
      </div>
      {footer && <p className="mt-4 text-sm text-slate-600">{footer}</p>}
    </main>
  );
}
