"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { apiFetch, describeError } from "@/lib/client/api";
import { useProject } from "@/lib/client/hooks";
import type { Page } from "@/lib/client/types";
import { Alert, Badge, Button, Card, inputClass } from "@/components/ui";

/** One `_debug` record (CONTRACT §10). */
interface DebugEntry {
  _id: string;
  date_created: string;
  request: { method: string; url: string; headers: Record<string, unknown>; body: unknown };
  response: { status_code: number; headers: Record<string, unknown>; body: unknown; time_took: number };
}

const STATUSES = [
  { value: "", label: "Any status" },
  { value: "2", label: "2xx" },
  { value: "3", label: "3xx" },
  { value: "4", label: "4xx" },
  { value: "5", label: "5xx" },
];
const METHODS = ["", "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/** The filter the three boxes stand for, in the API's own filter language (evaluated server-side). */
export function debugFilter(status: string, method: string, path: string): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  if (status) filter["response.status_code"] = { $gte: Number(status) * 100, $lt: Number(status) * 100 + 100 };
  if (method) filter["request.method"] = method;
  // A plain substring: the typed text is escaped, not taken as a pattern.
  if (path.trim()) filter["request.url"] = { $regex: path.trim().replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), $options: "i" };
  return filter;
}

/**
 * The project's `_debug` log (filled while settings.debug is on): newest first, filtered by status
 * class, method and path; a call opens with its request and response side by side.
 */
export function DebugLog({ projectId }: { projectId: string }) {
  const project = useProject(projectId).data;
  const [status, setStatus] = useState("");
  const [method, setMethod] = useState("");
  const [path, setPath] = useState("");
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | undefined>();
  const filter = debugFilter(status, method, path);
  const log = useQuery({
    queryKey: ["projects", projectId, "debug", filter, page],
    queryFn: ({ signal }) =>
      apiFetch<Page<DebugEntry>>(`/api/collections/_debug/documents/?per_page=50&page=${page}&sort=-date_created&filter=${encodeURIComponent(JSON.stringify(filter))}`, {
        project: projectId,
        signal,
      }),
    placeholderData: keepPreviousData,
  });
  return (
    <Card title="API log" description={project && !project.settings.debug ? "Debug logging is off: turn it on in Settings to record new calls." : "Each API call while debug logging is on, secrets redacted."}>
      <form className="grid gap-3 sm:grid-cols-[10rem_10rem_1fr]" aria-label="Filter the log" onSubmit={(e) => e.preventDefault()}>
        <label className="text-sm text-slate-700">
          Status
          <select value={status} onChange={(e) => (setStatus(e.target.value), setPage(1))} className={`mt-1 ${inputClass}`}>
            {STATUSES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <label className="text-sm text-slate-700">
          Method
          <select value={method} onChange={(e) => (setMethod(e.target.value), setPage(1))} className={`mt-1 ${inputClass}`}>
            {METHODS.map((m) => (
              <option key={m} value={m}>
                {m || "Any method"}
              </option>
            ))}
          </select>
        </label>
        <label className="text-sm text-slate-700">
          Path contains
          <input type="search" value={path} onChange={(e) => (setPath(e.target.value), setPage(1))} className={`mt-1 ${inputClass} font-mono`} />
        </label>
      </form>
      <div className="mt-4">
        {log.isError && <Alert>{describeError(log.error)}</Alert>}
        {log.data && log.data.items.length === 0 && <p className="text-sm text-slate-500">No calls logged{Object.keys(filter).length ? " match" : ""}.</p>}
        {log.data && log.data.items.length > 0 && (
          <ul className="divide-y divide-slate-100" aria-label="Logged calls">
            {log.data.items.map((entry) => (
              <li key={entry._id} data-testid="debug-entry">
                <button
                  type="button"
                  aria-expanded={open === entry._id}
                  onClick={() => setOpen(open === entry._id ? undefined : entry._id)}
                  className="flex w-full flex-wrap items-center gap-2 py-2 text-left text-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-600"
                >
                  <Badge tone={entry.response.status_code >= 500 ? "danger" : entry.response.status_code >= 400 ? "warning" : "success"}>{String(entry.response.status_code)}</Badge>
                  <span className="w-16 font-mono text-xs font-semibold">{entry.request.method}</span>
                  <span className="min-w-0 flex-1 truncate font-mono text-xs">{entry.request.url}</span>
                  <span className="text-xs text-slate-500">{entry.response.time_took} ms</span>
                  <time className="text-xs text-slate-500" dateTime={entry.date_created}>
                    {entry.date_created.replace("T", " ").slice(0, 19)}
                  </time>
                </button>
                {open === entry._id && (
                  <div className="grid gap-3 pb-3 lg:grid-cols-2" data-testid="debug-detail">
                    <Exchange title="Request" headers={entry.request.headers} body={entry.request.body} />
                    <Exchange title="Response" headers={entry.response.headers} body={entry.response.body} />
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
        {log.data && log.data.pages > 1 && (
          <nav aria-label="Log pages" className="mt-3 flex items-center justify-end gap-2 text-sm text-slate-600">
            <span>
              Page {log.data.page} of {log.data.pages}
            </span>
            <Button variant="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              Newer
            </Button>
            <Button variant="secondary" disabled={page >= log.data.pages} onClick={() => setPage(page + 1)}>
              Older
            </Button>
          </nav>
        )}
      </div>
    </Card>
  );
}

function Exchange({ title, headers, body }: { title: string; headers: Record<string, unknown>; body: unknown }) {
  return (
    <section aria-label={title} className="min-w-0 rounded-md border border-slate-200 bg-slate-50 p-3">
      <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-600">{title}</h3>
      <pre className="mt-2 max-h-40 overflow-auto whitespace-pre-wrap break-all font-mono text-xs">{Object.entries(headers ?? {}).map(([k, v]) => `${k}: ${String(v)}`).join("\n")}</pre>
      <pre className="mt-2 max-h-72 overflow-auto whitespace-pre-wrap break-all font-mono text-xs">{body === undefined || body === null || body === "" ? "(no body)" : typeof body === "string" ? body : JSON.stringify(body, null, 2)}</pre>
    </section>
  );
}
