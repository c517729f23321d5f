export default function Home() {
  return (
    <main className="mx-auto max-w-2xl p-8">
      <h1 className="text-2xl font-semibold">Arca</h1>
      <p className="mt-2 text-slate-600">Self-hosted document and file storage. The dashboard is being built.</p>
    </main>
  );
}
