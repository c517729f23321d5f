"use client";

import { useId, useState } from "react";
import { describeError } from "@/lib/client/api";
import { formatDuration } from "@/lib/client/hook-form";
import { DELIVERY_STATUSES, HISTORY_REFRESH_MS, useDeleteDelivery, useHookDeliveries, useRedeliver, type DeliveryStatus, type HookDelivery } from "@/lib/client/webhooks";
import { Alert, Button, Card, ConfirmDialog, SelectField } from "@/components/ui";
import { DeliveryStatusBadge, timeAgo } from "./delivery-status";

const PER_PAGE = 20;

/**
 * A hook's deliveries from `_hooks_history`, newest first, refreshed every few seconds (they
 * happen in the background): status, attempt, response code, duration, the request and response
 * on demand, a status filter, and "Redeliver" (`X-Action: retry`) and "Delete" (a queued one:
 * "Cancel") for those who manage hooks.
 */
export function HookDeliveries({ projectId, hookId, canManage }: { projectId: string; hookId: string; canManage: boolean }) {
  const [status, setStatus] = useState<DeliveryStatus | "">("");
  const [page, setPage] = useState(1);
  const deliveries = useHookDeliveries(projectId, hookId, { page, perPage: PER_PAGE, status: status || undefined });
  const data = deliveries.data;

  return (
    <Card
      title="Deliveries"
      description={`Every delivery of this hook and its last attempt; refreshed every ${HISTORY_REFRESH_MS / 1000} s.`}
      actions={
        <SelectField
          label="Status"
          name="delivery-status"
          value={status}
          onChange={(e) => {
            setStatus(e.target.value as DeliveryStatus | "");
            setPage(1);
          }}
          className="w-40"
        >
          <option value="">All</option>
          {DELIVERY_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s[0].toUpperCase() + s.slice(1)}
            </option>
          ))}
        </SelectField>
      }
    >
      {deliveries.isPending && <p className="text-sm text-slate-500">Loading deliveries...</p>}
      {deliveries.isError && <Alert>{describeError(deliveries.error)}</Alert>}
      {data && data.items.length === 0 && (
        <p className="text-sm text-slate-500">{status ? `No ${status} deliveries.` : "No deliveries yet. Write a document of the collection, or send a test."}</p>
      )}
      {data && data.items.length > 0 && (
        <ul className="divide-y divide-slate-100" aria-label="Deliveries">
          {data.items.map((delivery) => (
            <DeliveryRow key={delivery.id} projectId={projectId} delivery={delivery} canManage={canManage} />
          ))}
        </ul>
      )}
      {data && data.pages > 1 && (
        <nav aria-label="Deliveries pages" className="mt-4 flex flex-wrap items-center justify-between gap-2 text-sm">
          <Button variant="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Newer
          </Button>
          <span className="text-slate-600">
            Page {data.page} of {data.pages} ({data.total} deliveries)
          </span>
          <Button variant="secondary" disabled={page >= data.pages} onClick={() => setPage(page + 1)}>
            Older
          </Button>
        </nav>
      )}
    </Card>
  );
}

function DeliveryRow({ projectId, delivery, canManage }: { projectId: string; delivery: HookDelivery; canManage: boolean }) {
  const [open, setOpen] = useState(false);
  const redeliver = useRedeliver(projectId);
  const remove = useDeleteDelivery(projectId);
  const [deleting, setDeleting] = useState(false);
  const queued = delivery.status === "retrying";
  const detailsId = useId();
  const code = delivery.response?.status_code;

  return (
    <li className="py-3" data-testid={`delivery-${delivery.id}`} data-status={delivery.status} data-trigger={delivery.trigger}>
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2">
        <div className="flex w-full min-w-0 flex-wrap items-center gap-x-3 gap-y-1 text-sm sm:w-auto sm:flex-1">
          <DeliveryStatusBadge status={delivery.status} />
          <span className="font-medium text-slate-800">{delivery.trigger}</span>
          <span className="text-slate-600" title="The last attempt's number">
            attempt {delivery.attempt}
          </span>
          <span className="text-slate-600" data-testid="response-code">
            {code !== undefined ? `HTTP ${code}` : "no response"}
          </span>
          <span className="text-slate-600" data-testid="duration">
            {formatDuration(delivery.response?.time_took)}
          </span>
          <span className="text-xs text-slate-500" title={delivery.date_created}>
            {timeAgo(delivery.date_created)}
          </span>
          <span className="min-w-0 break-all font-mono text-xs text-slate-500">{delivery.document_id}</span>
        </div>
        <div className="flex gap-2">
          <Button variant="secondary" className="px-2.5 py-1.5 text-xs" aria-expanded={open} aria-controls={detailsId} onClick={() => setOpen(!open)}>
            {open ? "Hide details" : "Details"}
          </Button>
          {canManage && (
            <Button
              variant="secondary"
              className="px-2.5 py-1.5 text-xs"
              disabled={redeliver.isPending}
              aria-label={`Redeliver ${delivery.trigger} delivery ${delivery.id}`}
              onClick={() => redeliver.mutate(delivery.id)}
            >
              {redeliver.isPending ? "Sending..." : "Redeliver"}
            </Button>
          )}
          {canManage && (
            <Button
              variant="ghost"
              className="px-2.5 py-1.5 text-xs text-red-700 hover:bg-red-50"
              aria-label={`${queued ? "Cancel" : "Delete"} ${delivery.trigger} delivery ${delivery.id}`}
              onClick={() => setDeleting(true)}
            >
              {queued ? "Cancel" : "Delete"}
            </Button>
          )}
        </div>
      </div>
      <ConfirmDialog
        open={deleting}
        title={queued ? "Cancel this delivery?" : "Delete this delivery record?"}
        confirmLabel={queued ? "Cancel delivery" : "Delete record"}
        busy={remove.isPending}
        error={remove.error}
        onCancel={() => {
          remove.reset();
          setDeleting(false);
        }}
        onConfirm={() => remove.mutate(delivery.id, { onSuccess: () => setDeleting(false) })}
      >
        <p>
          {queued
            ? "It is not attempted again, and its record goes from the history. Redeliver a later change instead if the receiver needs it."
            : "Its record goes from the history; the receiver is not told."}
        </p>
      </ConfirmDialog>
      {delivery.error && <p className="mt-1 text-xs text-red-700">{delivery.error}</p>}
      {redeliver.isError && (
        <div className="mt-2">
          <Alert>{describeError(redeliver.error)}</Alert>
        </div>
      )}
      {redeliver.data && !redeliver.isPending && (
        <p className="mt-1 text-xs text-slate-600" role="status">
          Redelivered: {redeliver.data.status}
          {redeliver.data.response ? ` (HTTP ${redeliver.data.response.status_code})` : redeliver.data.error ? ` (${redeliver.data.error})` : ""}.
        </p>
      )}
      {open && (
        <div id={detailsId} className="mt-3 grid gap-3 lg:grid-cols-2 [&>*]:min-w-0">
          <section aria-label="Request" className="rounded-md border border-slate-200 bg-slate-50 p-3">
            <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">Request</h3>
            {delivery.request ? (
              <>
                <p className="mt-1 break-all font-mono text-xs">
                  {delivery.request.method} {delivery.request.url}
                </p>
                <Block label="Headers" text={formatHeaders(delivery.request.headers)} />
                <Block label="Body" text={prettyBody(delivery.request.body) || "(no body)"} />
              </>
            ) : (
              <p className="mt-1 text-xs text-slate-500">Not sent yet.</p>
            )}
          </section>
          <section aria-label="Response" className="rounded-md border border-slate-200 bg-slate-50 p-3">
            <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">Response</h3>
            {delivery.response ? (
              <>
                <p className="mt-1 font-mono text-xs">
                  HTTP {delivery.response.status_code} in {formatDuration(delivery.response.time_took)}
                </p>
                <Block label="Headers" text={formatHeaders(delivery.response.headers)} />
                <Block label="Body" text={prettyBody(delivery.response.body) || "(empty)"} />
              </>
            ) : (
              <p className="mt-1 text-xs text-slate-500">{delivery.error ?? "No response yet."}</p>
            )}
          </section>
          <p className="text-xs text-slate-500 lg:col-span-2">
            Operation id (X-Hook-Operation-ID): <span className="break-all font-mono">{delivery.id}</span>. Secrets and signatures are redacted; bodies are cut at 4 KiB.
          </p>
        </div>
      )}
    </li>
  );
}

function Block({ label, text }: { label: string; text: string }) {
  return (
    <div className="mt-2">
      <p className="text-xs font-medium text-slate-600">{label}</p>
      <pre className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap break-all rounded bg-white p-2 font-mono text-xs text-slate-800">{text}</pre>
    </div>
  );
}

function formatHeaders(headers: Record<string, string> | undefined): string {
  return Object.entries(headers ?? {})
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n");
}

function prettyBody(body: string | undefined): string {
  if (!body) return "";
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
