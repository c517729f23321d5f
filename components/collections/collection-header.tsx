"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useCollection } from "@/lib/client/hooks";

/** The collection's title, count and its two views (documents, definition). */
export function CollectionHeader({ projectId, collectionId }: { projectId: string; collectionId: string }) {
  const collection = useCollection(projectId, collectionId).data;
  const pathname = usePathname();
  const base = `/projects/${projectId}/collections/${encodeURIComponent(collectionId)}`;
  const tabs = [
    { href: base, label: "Documents" },
    { href: `${base}/definition`, label: "Schema & indexes" },
  ];
  return (
    <div className="mb-4">
      <nav aria-label="Collection breadcrumb" className="text-sm text-slate-500">
        <Link href={`/projects/${projectId}/collections`} className="hover:text-slate-800 hover:underline">
          Collections
        </Link>
        <span aria-hidden> / </span>
        <span className="break-all font-mono">{collectionId}</span>
      </nav>
      <div className="mt-1 flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h2 className="min-w-0 break-all text-xl font-semibold text-slate-900">{collection?.name || collectionId}</h2>
        {collection && (
          <span className="text-sm text-slate-500" data-testid="collection-count">
            {collection.documents_count.toLocaleString("en")} {collection.documents_count === 1 ? "document" : "documents"}
          </span>
        )}
      </div>
      {collection?.description && <p className="mt-1 max-w-prose text-sm text-slate-600">{collection.description}</p>}
      <nav aria-label="Collection views" className="mt-3 flex gap-2">
        {tabs.map((tab) => {
          const current = pathname === tab.href || decodeURIComponent(pathname) === decodeURIComponent(tab.href);
          return (
            <Link
              key={tab.href}
              href={tab.href}
              aria-current={current ? "page" : undefined}
              className={`rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-indigo-600 ${
                current ? "bg-indigo-50 text-indigo-700" : "text-slate-600 hover:bg-slate-100 hover:text-slate-900"
              }`}
            >
              {tab.label}
            </Link>
          );
        })}
      </nav>
    </div>
  );
}
