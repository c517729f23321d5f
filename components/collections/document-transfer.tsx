"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { describeError } from "@/lib/client/api";
import { exportUrl, formatOfFile, importDocuments, type ImportMode, type ImportReport } from "@/lib/client/document-transfer";
import type { UploadProgress } from "@/lib/client/files";
import { queryKeys } from "@/lib/client/hooks";
import { Alert, Button, buttonClass, SelectField } from "@/components/ui";

interface View {
  filter?: Record<string, unknown>;
  text?: string;
  sort?: string;
}

type Panel = "export" | "import" | undefined;

/**
 * Export (a real download: a link to the export URL, streamed to disk by the browser) and import
 * (the picked file streamed as the request body, with progress, then the report: counts and the
 * rows that failed) of a collection's documents. Shown for user collections only.
 */
export function DocumentTransfer({ projectId, collectionId, view }: { projectId: string; collectionId: string; view: View }) {
  const [panel, setPanel] = useState<Panel>();
  const toggle = (next: Panel) => setPanel((open) => (open === next ? undefined : next));
  return (
    <div className="relative flex gap-2">
      <Button variant="secondary" aria-expanded={panel === "export"} aria-controls={panel === "export" ? "export-panel" : undefined} onClick={() => toggle("export")}>
        Export
      </Button>
      <Button variant="secondary" aria-expanded={panel === "import"} aria-controls={panel === "import" ? "import-panel" : undefined} onClick={() => toggle("import")}>
        Import
      </Button>
      {panel === "export" && <ExportPanel projectId={projectId} collectionId={collectionId} view={view} />}
      {panel === "import" && <ImportPanel projectId={projectId} collectionId={collectionId} onClose={() => setPanel(undefined)} />}
    </div>
  );
}

const panelClass =
  "absolute right-0 top-full z-20 mt-2 w-[min(36rem,90vw)] rounded-lg border border-slate-200 bg-white p-4 text-left text-sm font-normal shadow-lg dark:border-slate-700 dark:bg-slate-900";

function ExportPanel({ projectId, collectionId, view }: { projectId: string; collectionId: string; view: View }) {
  const narrowed = Boolean((view.filter && Object.keys(view.filter).length > 0) || view.text?.trim());
  const [matching, setMatching] = useState(narrowed);
  const scope = matching ? view : { sort: view.sort };
  return (
    <section id="export-panel" aria-label="Export documents" className={panelClass}>
      <p className="text-slate-600">
        Downloads every document{matching ? " matching the table's filter and search" : ""}, in the table&apos;s order. JSON Lines keeps each
        document as stored; CSV has a column per schema property (objects and arrays as JSON).
      </p>
      {narrowed && (
        <label className="mt-3 flex items-center gap-2">
          <input type="checkbox" checked={matching} onChange={(e) => setMatching(e.target.checked)} />
          Only documents matching the current filter or search
        </label>
      )}
      <div className="mt-3 flex gap-2">
        <a className={buttonClass("primary")} href={exportUrl(projectId, collectionId, "jsonl", scope)} download={`${collectionId}.jsonl`}>
          Download JSON Lines
        </a>
        <a className={buttonClass("secondary")} href={exportUrl(projectId, collectionId, "csv", scope)} download={`${collectionId}.csv`}>
          Download CSV
        </a>
      </div>
    </section>
  );
}

type Run = { status: "sending"; progress: UploadProgress; cancel: () => void } | { status: "done"; report: ImportReport } | { status: "failed"; message: string };

function ImportPanel({ projectId, collectionId, onClose }: { projectId: string; collectionId: string; onClose: () => void }) {
  const client = useQueryClient();
  const [file, setFile] = useState<File | undefined>();
  const [mode, setMode] = useState<ImportMode>("create");
  const [run, setRun] = useState<Run | undefined>();
  const fileId = useId();

  function start(event: React.FormEvent) {
    event.preventDefault();
    if (!file) return;
    const handle = importDocuments(projectId, collectionId, file, mode, (progress) =>
      setRun((current) => (current?.status === "sending" ? { ...current, progress } : current)),
    );
    setRun({ status: "sending", progress: { loaded: 0, total: file.size }, cancel: handle.cancel });
    handle.done.then(
      (report) => setRun({ status: "done", report }),
      (error) => setRun({ status: "failed", message: describeError(error) }),
    ).finally(() => {
      // Rows may have been written even when the answer was an error (413 mid-body, a cancel).
      void client.invalidateQueries({ queryKey: queryKeys.documents(projectId, collectionId) });
      void client.invalidateQueries({ queryKey: queryKeys.collection(projectId, collectionId) });
      void client.invalidateQueries({ queryKey: queryKeys.collectionList(projectId) });
    });
  }

  const sending = run?.status === "sending";
  const shown = sending && run.progress.total > 0 ? Math.round((run.progress.loaded / run.progress.total) * 100) : 0;
  return (
    <section id="import-panel" aria-label="Import documents" className={panelClass}>
      <form onSubmit={start} className="space-y-3" aria-label="Import a file">
        <div>
          <label htmlFor={fileId} className="block text-sm font-medium text-slate-700">
            File (JSON Lines or CSV)
          </label>
          <input
            id={fileId}
            type="file"
            accept=".jsonl,.ndjson,.json,.csv,application/x-ndjson,text/csv"
            className="mt-1 block w-full text-sm"
            disabled={sending}
            onChange={(e) => {
              setFile(e.target.files?.[0]);
              setRun(undefined);
            }}
          />
          <p className="mt-1 text-xs text-slate-500">
            {file ? `${file.name}: read as ${formatOfFile(file) === "csv" ? "CSV (cells typed by the schema)" : "JSON Lines (one document per line)"}.` : "A .csv file is read as CSV, anything else as JSON Lines."}
          </p>
        </div>
        <SelectField label="Existing _id" value={mode} onChange={(e) => setMode(e.target.value as ImportMode)} disabled={sending}>
          <option value="create">Report the row as an error (create only)</option>
          <option value="upsert">Replace the document (upsert)</option>
        </SelectField>
        <div className="flex gap-2">
          <Button type="submit" disabled={!file || sending}>
            Import
          </Button>
          {sending ? (
            <Button variant="ghost" onClick={run.cancel}>
              Cancel
            </Button>
          ) : (
            <Button variant="ghost" onClick={onClose}>
              Close
            </Button>
          )}
        </div>
      </form>
      {sending && (
        <div
          role="progressbar"
          aria-label={`Import of ${file?.name}`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={shown}
          aria-valuetext={shown >= 100 ? "Sent, writing the last rows" : `${shown}%`}
          className="mt-3 h-2 overflow-hidden rounded-full bg-slate-100"
        >
          <div className="h-full bg-indigo-500 transition-[width] duration-150" style={{ width: `${shown}%` }} />
        </div>
      )}
      {run?.status === "failed" && (
        <div className="mt-3">
          <Alert>{run.message}</Alert>
        </div>
      )}
      {run?.status === "done" && <ImportSummary report={run.report} />}
    </section>
  );
}

function ImportSummary({ report }: { report: ImportReport }) {
  const plural = (n: number, one: string, many: string) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;
  return (
    <div className="mt-3 space-y-3" data-testid="import-summary">
      <Alert tone={report.failed > 0 ? "warning" : "success"}>
        {`Imported: ${plural(report.created, "document", "documents")} created, ${report.updated.toLocaleString("en")} updated, ${plural(report.failed, "row", "rows")} failed.`}
      </Alert>
      {report.errors.length > 0 && (
        <div className="max-h-64 overflow-auto rounded-md border border-slate-200 dark:border-slate-700">
          <table className="w-full text-left text-xs" aria-label="Rows that failed">
            <thead className="sticky top-0 bg-slate-50 dark:bg-slate-800">
              <tr>
                <th scope="col" className="px-2 py-1">Row</th>
                <th scope="col" className="px-2 py-1">_id</th>
                <th scope="col" className="px-2 py-1">Message</th>
              </tr>
            </thead>
            <tbody>
              {report.errors.map((error, i) => (
                <tr key={`${error.row}-${i}`} className="border-t border-slate-100 align-top dark:border-slate-800">
                  <td className="px-2 py-1 font-mono">{error.row}</td>
                  <td className="break-all px-2 py-1 font-mono">{error._id ?? ""}</td>
                  <td className="px-2 py-1">
                    {error.message}
                    {error.errors?.map((e, j) => (
                      <div key={j} className="text-slate-500">
                        {e.property ? <span className="font-mono">{e.property}</span> : null}
                        {e.property ? ": " : ""}
                        {e.message}
                      </div>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {report.errors_truncated && <p className="text-xs text-slate-500">Only the first 1,000 failed rows are listed.</p>}
    </div>
  );
}
