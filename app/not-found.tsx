import Link from "next/link";

export default function NotFound() {
  return (
    <main className="mx-auto max-w-md px-4 py-16 text-center">
      <h1 className="text-2xl font-semibold text-slate-900">Not found</h1>
      <p className="mt-2 text-sm text-slate-600">This page does not exist, or you do not have access to it.</p>
      <Link href="/projects" className="mt-6 inline-block font-medium text-indigo-700 hover:underline">
        Back to your projects
      </Link>
    </main>
  );
}
