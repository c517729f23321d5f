"use client";

import Link from "next/link";
import { describeError } from "@/lib/client/api";
import { useHookList, useLastDelivery, type Hook } from "@/lib/client/webhooks";
import { Alert, Badge, Card } from "@/components/ui";
import { DeliveryStatusBadge, deliverySummary } from "./delivery-status";

export const linkButtonClass =
  "inline-flex items-center justify-center gap-2 rounded-md bg-indigo-600 px-3.5 py-2 text-sm font-medium text-white shadow-sm transition hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600";

/** A project's hooks, each with the status of its last delivery; owners and admins add new ones. */
export function HooksView({ projectId, canManage }: { projectId: string; canManage: boolean }) {
  const hooks = useHookList(projectId);
  const base = `/projects/${projectId}/hooks`;
  return (
    <Card
      title="Hooks"
      description="Hooks send every change of a collection's documents to a URL of yours, signed and retried until it is received."
      actions={
        canManage ? (
          <Link href={`${base}/new`} className={linkButtonClass}>
            New hook
          </Link>
        ) : undefined
      }
    >
      {hooks.isPending && <p className="text-sm text-slate-500">Loading hooks...</p>}
      {hooks.isError && <Alert>{describeError(hooks.error)}</Alert>}
      {hooks.data && hooks.data.items.length === 0 && (
        <p className="text-sm text-slate-500">No hooks yet.{canManage ? " Create one to get a request for every created, updated or deleted document." : ""}</p>
      )}
      {hooks.data && hooks.data.items.length > 0 && (
        <ul className="divide-y divide-slate-100" aria-label="Hooks">
          {hooks.data.items.map((hook) => (
            <HookRow key={hook._id} projectId={projectId} hook={hook} href={`${base}/${encodeURIComponent(hook._id)}`} />
          ))}
        </ul>
      )}
    </Card>
  );
}

function HookRow({ projectId, hook, href }: { projectId: string; hook: Hook; href: string }) {
  const last = useLastDelivery(projectId, hook._id);
  return (
    <li className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2 py-3" data-testid={`hook-${hook._id}`}>
      <div className="min-w-0 flex-1 basis-64">
        <div className="flex flex-wrap items-center gap-2">
          <Link href={href} className="font-medium text-indigo-700 hover:underline">
            {hook.name || "Unnamed hook"}
          </Link>
          {hook.is_active ? <Badge tone="success">Active</Badge> : <Badge>Inactive</Badge>}
        </div>
        <p className="mt-0.5 break-all font-mono text-xs text-slate-600">
          {hook.method} {hook.url}
        </p>
        <p className="mt-0.5 text-xs text-slate-500">
          <span className="font-mono">{hook.collection}</span> · {hook.triggers.join(", ")}
          {hook.conditions ? " · with conditions" : ""}
        </p>
      </div>
      <div className="text-left text-xs sm:text-right" data-testid="last-delivery">
        <span className="sr-only">Last delivery: </span>
        {last.isPending ? (
          <span className="text-slate-500">...</span>
        ) : last.isError ? (
          <span className="text-red-600">{describeError(last.error)}</span>
        ) : last.data ? (
          <span className="inline-flex flex-wrap items-center gap-2">
            <DeliveryStatusBadge status={last.data.status} />
            <span className="text-slate-500">{deliverySummary(last.data)}</span>
          </span>
        ) : (
          <span className="text-slate-500">No deliveries yet</span>
        )}
      </div>
    </li>
  );
}
