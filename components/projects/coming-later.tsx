import Link from "next/link";

/** A section of the project whose dashboard page is not built yet; the API already serves it. */
export function ComingLater({ projectId, title, api, children }: { projectId: string; title: string; api: string; children: React.ReactNode }) {
  return (
    <section className="rounded-lg border border-dashed border-slate-300 bg-white p-6 sm:p-8">
      <h2 className="text-lg font-semibold text-slate-900">{title}</h2>
      <p className="mt-2 max-w-prose text-sm text-slate-600">{children}</p>
      <p className="mt-4 text-sm text-slate-600">
        This dashboard page is not built yet. Until it is, use the API: <span className="break-all font-mono text-slate-800">{api}</span>{" "}
        with a token from the{" "}
        <Link href={`/projects/${projectId}/tokens`} className="font-medium text-indigo-700 hover:underline">
          Tokens
        </Link>{" "}
        page.
      </p>
    </section>
  );
}
