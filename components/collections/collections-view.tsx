"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { describeError } from "@/lib/client/api";
import { useCollections, useCreateCollection } from "@/lib/client/hooks";
import type { CollectionDefinition } from "@/lib/client/types";
import { Alert, Badge, Button, Card } from "@/components/ui";
import { CollectionForm } from "./collection-form";

/** Where a system collection is managed in the dashboard: its page, or (notifications) its list. */
const SYSTEM_PAGES: Record<string, string> = {
  _files: "files",
  _users: "members",
  _tokens: "tokens",
  _hooks: "hooks",
  _hooks_history: "hooks",
  _usage: "usage",
  _debug: "usage",
  _notification: "collections/_notification",
};

/** A project's collections with their document counts; owners and admins create new ones here. */
export function CollectionsView({ projectId, canManage }: { projectId: string; canManage: boolean }) {
  const collections = useCollections(projectId);
  const create = useCreateCollection(projectId);
  const router = useRouter();
  const [creating, setCreating] = useState(false);
  const items = collections.data?.items ?? [];
  const own = items.filter((c) => !c.is_system);
  const system = items.filter((c) => c.is_system);
  const base = `/projects/${projectId}`;

  return (
    <div className="space-y-6">
      {creating && (
        <Card title="New collection" description="Give it an id, and optionally a schema the documents must follow and indexes.">
          <CollectionForm
            busy={create.isPending}
            error={create.error}
            submitLabel="Create collection"
            onCancel={() => {
              create.reset();
              setCreating(false);
            }}
            onSubmit={(input) =>
              create.mutate(input, {
                onSuccess: (collection) => router.push(`${base}/collections/${encodeURIComponent(collection._id)}`),
              })
            }
          />
        </Card>
      )}
      <Card
        title="Collections"
        description="Collections hold your documents. Open one to browse, filter and edit its documents."
        actions={
          canManage && !creating ? (
            <Button onClick={() => setCreating(true)} data-testid="new-collection">
              New collection
            </Button>
          ) : undefined
        }
      >
        {collections.isPending && <p className="text-sm text-slate-500">Loading collections...</p>}
        {collections.isError && <Alert>{describeError(collections.error)}</Alert>}
        {collections.data && own.length === 0 && (
          <p className="text-sm text-slate-500">
            No collections yet.{canManage ? " Create one, or write a document through the API: its collection is created on the way." : ""}
          </p>
        )}
        {own.length > 0 && <CollectionTable items={own} href={(c) => `${base}/collections/${encodeURIComponent(c._id)}`} label="Collections" />}
        {!canManage && <p className="mt-3 text-xs text-slate-500">Only the project&apos;s owner or an admin can define collections.</p>}
      </Card>
      {system.length > 0 && (
        <Card title="System collections" description="Arca's own collections: read through the API, managed on their pages.">
          <CollectionTable items={system} href={(c) => (SYSTEM_PAGES[c._id] ? `${base}/${SYSTEM_PAGES[c._id]}` : undefined)} label="System collections" />
        </Card>
      )}
    </div>
  );
}

function CollectionTable({ items, href, label }: { items: CollectionDefinition[]; href: (c: CollectionDefinition) => string | undefined; label: string }) {
  return (
    <div className="relative overflow-x-auto">
      <table className="w-full text-sm" aria-label={label}>
        <thead className="border-b border-slate-200 text-left text-xs uppercase tracking-wide text-slate-500">
          <tr>
            <th scope="col" className="py-2 pr-3 font-medium">
              Collection
            </th>
            <th scope="col" className="hidden py-2 pr-3 font-medium sm:table-cell">
              Name
            </th>
            <th scope="col" className="py-2 pr-3 text-right font-medium">
              Documents
            </th>
            <th scope="col" className="hidden py-2 text-right font-medium sm:table-cell">
              Indexes
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {items.map((c) => {
            const link = href(c);
            return (
              <tr key={c._id} data-testid={`collection-${c._id}`}>
                <td className="max-w-48 py-2 pr-3">
                  {link ? (
                    <Link href={link} className="break-all font-mono font-medium text-indigo-700 hover:underline">
                      {c._id}
                    </Link>
                  ) : (
                    <span className="break-all font-mono text-slate-700">{c._id}</span>
                  )}
                  {c.is_system && (
                    <span className="ml-2">
                      <Badge>system</Badge>
                    </span>
                  )}
                  {c.name && <span className="block truncate text-xs text-slate-500 sm:hidden">{c.name}</span>}
                </td>
                <td className="hidden max-w-64 truncate py-2 pr-3 text-slate-700 sm:table-cell">{c.name || <span className="text-slate-400">—</span>}</td>
                <td className="py-2 pr-3 text-right tabular-nums" data-testid="documents-count">
                  {(c.documents_count ?? 0).toLocaleString("en")}
                </td>
                <td className="hidden py-2 text-right tabular-nums text-slate-600 sm:table-cell">{c.indexes?.length ?? 0}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
