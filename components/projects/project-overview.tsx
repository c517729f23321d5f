"use client";

import Link from "next/link";
import { describeError } from "@/lib/client/api";
import { formatBytes } from "@/lib/client/format";
import { useCollection, useProject } from "@/lib/client/hooks";
import { Alert, Card } from "@/components/ui";

/** A project's status at a glance: usage against its limits, and how to reach its API. */
export function ProjectOverview({ projectId, apiUrl }: { projectId: string; apiUrl: string }) {
  const { data: project, error, isPending } = useProject(projectId);
  if (isPending) return <p className="text-sm text-slate-500">Loading...</p>;
  if (error || !project) return <Alert>{describeError(error)}</Alert>;
  return (
    <div className="space-y-6">
      {!project.status.is_active && (
        <Alert tone="warning">
          This project is inactive: every API call to it answers 403.{" "}
          <Link href={`/projects/${projectId}/settings`} className="font-medium underline">
            Activate it in Settings
          </Link>
          .
        </Alert>
      )}
      <div className="grid gap-4 sm:grid-cols-2">
        <UsageCard label="Data" used={project.status.data_size} limit={project.settings.data_size_limit} testId="status-data-size" />
        <UsageCard label="Files" used={project.status.files_size} limit={project.settings.files_size_limit} testId="status-files-size" />
      </div>
      <NotificationsLink projectId={projectId} />
      <Card title="API access" description="Clients reach this project by its host, or on the bare host with the X-Project header.">
        <dl className="space-y-3 text-sm">
          <div>
            <dt className="text-slate-500">Endpoint</dt>
            <dd className="mt-0.5 break-all font-mono text-slate-900">{apiUrl}</dd>
          </div>
          <div>
            <dt className="text-slate-500">Or, on any host</dt>
            <dd className="mt-0.5 break-all font-mono text-slate-900">X-Project: {projectId}</dd>
          </div>
          <div>
            <dt className="text-slate-500">Credentials</dt>
            <dd className="mt-0.5 text-slate-700">
              <span className="font-mono">Authorization: Token &lt;secret&gt;</span> with a{" "}
              <Link href={`/projects/${projectId}/tokens`} className="font-medium text-indigo-700 hover:underline">
                project token
              </Link>
              .
            </dd>
          </div>
        </dl>
      </Card>
    </div>
  );
}

function UsageCard({ label, used, limit, testId }: { label: string; used: number; limit: number; testId: string }) {
  const share = limit > 0 ? Math.min(1, used / limit) : 0;
  return (
    <section className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" aria-label={`${label} usage`}>
      <h2 className="text-sm font-medium text-slate-500">{label}</h2>
      <p className="mt-1 text-2xl font-semibold text-slate-900" data-testid={testId}>
        {formatBytes(used)}
      </p>
      <p className="mt-1 text-xs text-slate-500">{limit > 0 ? `of ${formatBytes(limit)} (${Math.round(share * 100)} %)` : "No limit"}</p>
      {limit > 0 && (
        <div
          className="mt-2 h-2 overflow-hidden rounded-full bg-slate-100"
          role="progressbar"
          aria-label={`${label} used`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(share * 100)}
        >
          <div className={`h-full ${share >= 0.8 ? "bg-amber-500" : "bg-indigo-500"}`} style={{ width: `${share * 100}%` }} />
        </div>
      )}
    </section>
  );
}

/** Failed hooks, limit warnings and member changes land in `_notification`: its count and list. */
function NotificationsLink({ projectId }: { projectId: string }) {
  const notifications = useCollection(projectId, "_notification").data;
  if (!notifications) return null;
  const count = notifications.documents_count;
  return (
    <p className="text-sm text-slate-600" data-testid="notifications-link">
      <Link href={`/projects/${projectId}/collections/_notification`} className="font-medium text-indigo-700 hover:underline">
        {count === 0 ? "No notifications" : `${count.toLocaleString("en")} ${count === 1 ? "notification" : "notifications"}`}
      </Link>{" "}
      <span className="text-slate-500">(failed hook deliveries, limit warnings, member changes)</span>
    </p>
  );
}
