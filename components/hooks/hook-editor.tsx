"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { describeError } from "@/lib/client/api";
import { useCreateHook, useHook, useUpdateHook } from "@/lib/client/webhooks";
import { Alert, Card } from "@/components/ui";
import { HookForm } from "./hook-form";
import { changedInput } from "@/lib/client/hook-form";

/** `/hooks/new` and `/hooks/<id>/edit`: the form, then the hook's page. */
export function HookEditor({ projectId, hookId }: { projectId: string; hookId?: string }) {
  const base = `/projects/${projectId}/hooks`;
  return (
    <div className="mx-auto max-w-3xl space-y-4">
      <nav aria-label="Hooks breadcrumb" className="text-sm text-slate-500">
        <Link href={base} className="hover:text-slate-800 hover:underline">
          Hooks
        </Link>
        <span aria-hidden> / </span>
        {hookId ? (
          <>
            <Link href={`${base}/${encodeURIComponent(hookId)}`} className="break-all font-mono hover:text-slate-800 hover:underline">
              {hookId}
            </Link>
            <span aria-hidden> / </span>
            <span>Edit</span>
          </>
        ) : (
          <span>New hook</span>
        )}
      </nav>
      {hookId ? <EditHook projectId={projectId} hookId={hookId} base={base} /> : <NewHook projectId={projectId} base={base} />}
    </div>
  );
}

function NewHook({ projectId, base }: { projectId: string; base: string }) {
  const create = useCreateHook(projectId);
  const router = useRouter();
  return (
    <Card title="New hook" description="Every committed change of the collection's documents that matches is sent to the URL.">
      <HookForm
        projectId={projectId}
        busy={create.isPending}
        error={create.error}
        submitLabel="Create hook"
        onCancel={() => router.push(base)}
        onSubmit={(input) => create.mutate(input, { onSuccess: (hook) => router.push(`${base}/${encodeURIComponent(hook._id)}`) })}
      />
    </Card>
  );
}

function EditHook({ projectId, hookId, base }: { projectId: string; hookId: string; base: string }) {
  const hook = useHook(projectId, hookId);
  const update = useUpdateHook(projectId);
  const router = useRouter();
  const page = `${base}/${encodeURIComponent(hookId)}`;
  if (hook.isPending) return <p className="text-sm text-slate-500">Loading hook...</p>;
  if (hook.isError) return <Alert>{describeError(hook.error)}</Alert>;
  return (
    <Card title={`Edit ${hook.data.name || "hook"}`}>
      <HookForm
        projectId={projectId}
        initial={hook.data}
        busy={update.isPending}
        error={update.error}
        submitLabel="Save hook"
        onCancel={() => router.push(page)}
        onSubmit={(input, opened) => update.mutate({ id: hookId, patch: opened ? changedInput(opened, input) : input }, { onSuccess: () => router.push(page) })}
      />
    </Card>
  );
}
