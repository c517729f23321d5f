"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ApiError, describeError } from "@/lib/client/api";
import { useDeleteHook, useHook, useSendTestDelivery, useUpdateHook, type Hook } from "@/lib/client/webhooks";
import { Alert, Badge, Button, Card, ConfirmDialog } from "@/components/ui";
import { deliverySummary } from "./delivery-status";
import { HookDeliveries } from "./hook-deliveries";

/** One hook: what it sends where, its switches (active, test, edit, delete) and its deliveries. */
export function HookDetail({ projectId, hookId, canManage }: { projectId: string; hookId: string; canManage: boolean }) {
  const hook = useHook(projectId, hookId);
  const base = `/projects/${projectId}/hooks`;
  return (
    <div className="space-y-4">
      <nav aria-label="Hooks breadcrumb" className="text-sm text-slate-500">
        <Link href={base} className="hover:text-slate-800 hover:underline">
          Hooks
        </Link>
        <span aria-hidden> / </span>
        <span className="break-all font-mono">{hookId}</span>
      </nav>
      {hook.isPending && <p className="text-sm text-slate-500">Loading hook...</p>}
      {hook.isError &&
        (hook.error instanceof ApiError && hook.error.status === 404 ? (
          <Alert>
            This hook does not exist (any more).{" "}
            <Link href={base} className="underline">
              Back to the hooks
            </Link>
          </Alert>
        ) : (
          <Alert>{describeError(hook.error)}</Alert>
        ))}
      {hook.data && <HookSummary projectId={projectId} hook={hook.data} canManage={canManage} base={base} />}
      {hook.data && <HookDeliveries projectId={projectId} hookId={hookId} canManage={canManage} />}
    </div>
  );
}

function HookSummary({ projectId, hook, canManage, base }: { projectId: string; hook: Hook; canManage: boolean; base: string }) {
  const update = useUpdateHook(projectId);
  const test = useSendTestDelivery(projectId);
  const remove = useDeleteHook(projectId);
  const router = useRouter();
  const [deleting, setDeleting] = useState(false);
  const label = hook.name || hook._id;
  // The switch shows what was asked at once (a controlled input would snap back until the
  // mutation's pending state renders); the hook's answer, or an error, settles it.
  const [requestedActive, setRequestedActive] = useState<boolean | undefined>();

  return (
    <Card
      title={hook.name || "Unnamed hook"}
      description={<span className="break-all font-mono text-xs">{hook._id}</span>}
      actions={
        canManage ? (
          <div className="flex flex-wrap gap-2">
            <Button onClick={() => test.mutate(hook._id)} disabled={test.isPending}>
              {test.isPending ? "Sending..." : "Send test"}
            </Button>
            <Link
              href={`${base}/${encodeURIComponent(hook._id)}/edit`}
              className="inline-flex items-center rounded-md border border-slate-300 bg-white px-3.5 py-2 text-sm font-medium text-slate-800 shadow-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
            >
              Edit
            </Link>
            <Button variant="ghost" className="text-red-700 hover:bg-red-50" onClick={() => setDeleting(true)}>
              Delete
            </Button>
          </div>
        ) : undefined
      }
    >
      <div className="space-y-3">
        {test.data && (
          <Alert tone={test.data.status === "success" ? "success" : "error"}>
            Test delivery {test.data.status === "success" ? "received" : "failed"}: {test.data.error ?? deliverySummary(test.data)}
          </Alert>
        )}
        {test.isError && <Alert>{describeError(test.error)}</Alert>}
        {update.isError && <Alert>{describeError(update.error)}</Alert>}
        <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[auto_1fr]">
          <dt className="text-slate-500">Sends</dt>
          <dd className="min-w-0 break-all font-mono text-xs text-slate-800">
            {hook.method} {hook.url}
          </dd>
          <dt className="text-slate-500">Collection</dt>
          <dd className="font-mono text-xs">{hook.collection}</dd>
          <dt className="text-slate-500">Triggers</dt>
          <dd>{hook.triggers.join(", ")}</dd>
          <dt className="text-slate-500">Conditions</dt>
          <dd className="min-w-0 break-all font-mono text-xs">{hook.conditions ? JSON.stringify(hook.conditions) : "none (every document)"}</dd>
          <dt className="text-slate-500">Delivery</dt>
          <dd>
            {hook.retry.strategy} retries, read timeout {hook.timeout.read} s, connect timeout {hook.timeout.connect} s
            {Object.keys(hook.headers).length ? `, headers: ${Object.keys(hook.headers).join(", ")}` : ""}
          </dd>
          <dt className="text-slate-500">Signed</dt>
          <dd>{hook.secret ? "yes" : "no (no secret)"}</dd>
          <dt className="text-slate-500">Status</dt>
          <dd className="flex flex-wrap items-center gap-3">
            {hook.is_active ? <Badge tone="success">Active</Badge> : <Badge>Inactive</Badge>}
            {canManage && (
              <label className="inline-flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  role="switch"
                  className="h-5 w-5 accent-indigo-600"
                  checked={requestedActive ?? hook.is_active}
                  disabled={update.isPending}
                  onChange={(e) => {
                    setRequestedActive(e.target.checked);
                    update.mutate({ id: hook._id, patch: { is_active: e.target.checked } }, { onSettled: () => setRequestedActive(undefined) });
                  }}
                />
                Active
              </label>
            )}
          </dd>
        </dl>
      </div>
      <ConfirmDialog
        open={deleting}
        title="Delete this hook?"
        confirmLabel="Delete hook"
        busy={remove.isPending}
        error={remove.error}
        onCancel={() => {
          remove.reset();
          setDeleting(false);
        }}
        onConfirm={() => remove.mutate(hook._id, { onSuccess: () => router.push(base) })}
      >
        <p>
          <span className="font-medium">{label}</span> stops at once; deliveries still queued end as errors. Its delivery history stays until it expires.
        </p>
      </ConfirmDialog>
    </Card>
  );
}
