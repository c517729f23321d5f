"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { ApiError, describeError } from "@/lib/client/api";
import { contentUrl, downloadUrl, fetchContent, uploadFile, type UploadHandle, type UploadTarget } from "@/lib/client/files";
import { formatBytes } from "@/lib/client/format";
import { queryKeys, useCollection, useCollections, useDeleteFile, useFiles, useFileUploaded } from "@/lib/client/hooks";
import { flashClass, useLiveFeed } from "@/lib/client/use-live-feed";
import { LiveStatus } from "@/components/live/live-status";
import { fileProperties } from "@/lib/client/json-editing";
import type { FileRecord } from "@/lib/client/types";
import { Alert, Badge, Button, buttonClass, Card, ConfirmDialog, inputClass, SelectField, TextField } from "@/components/ui";
import { FilePreview } from "./file-preview";

interface Upload {
  key: number;
  name: string;
  size: number;
  loaded: number;
  total: number;
  status: "uploading" | "done" | "failed" | "cancelled";
  message?: string;
  record?: FileRecord;
  handle?: UploadHandle;
}

let nextKey = 1;

/** Upload (picker or drag and drop, with real progress and cancel), list, preview, download, delete. */
export function FilesView({ projectId }: { projectId: string }) {
  const [selected, setSelected] = useState<FileRecord | undefined>();
  return (
    <div className="space-y-6">
      <UploadCard projectId={projectId} onUploaded={setSelected} />
      {selected && (
        <Card
          title={`Preview: ${selected.name}`}
          description={`${selected.content_type} · ${formatBytes(selected.size)}`}
          actions={
            <div className="flex gap-2">
              <DownloadButton projectId={projectId} file={selected} />
              <Button variant="ghost" onClick={() => setSelected(undefined)}>
                Close
              </Button>
            </div>
          }
        >
          <FilePreview key={selected._id + selected.md5} projectId={projectId} file={selected} />
        </Card>
      )}
      <FileList projectId={projectId} selected={selected} onSelect={setSelected} />
    </div>
  );
}

function UploadCard({ projectId, onUploaded }: { projectId: string; onUploaded: (file: FileRecord) => void }) {
  const [mode, setMode] = useState<"files" | "property">("files");
  const [collection, setCollection] = useState("");
  const [documentId, setDocumentId] = useState("");
  const [property, setProperty] = useState("");
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [dragging, setDragging] = useState(false);
  const collections = useCollections(projectId);
  const uploaded = useFileUploaded(projectId);
  const own = (collections.data?.items ?? []).filter((c) => !c.is_system);
  const targetReady = mode === "files" || (collection && documentId.trim() && property.trim());
  const update = (key: number, patch: Partial<Upload>) => setUploads((list) => list.map((u) => (u.key === key ? { ...u, ...patch } : u)));

  function start(files: FileList | File[]) {
    if (!targetReady) return;
    const target: UploadTarget = mode === "files" ? { kind: "files" } : { kind: "property", collection, document: documentId.trim(), property: property.trim() };
    // One property holds one file: only the first when uploading into a property.
    const list = mode === "property" ? [...files].slice(0, 1) : [...files];
    for (const file of list) {
      const key = nextKey++;
      const handle = uploadFile(projectId, target, file, ({ loaded, total }) => update(key, { loaded, total }));
      setUploads((current) => [{ key, name: file.name, size: file.size, loaded: 0, total: file.size, status: "uploading", handle }, ...current]);
      handle.done.then(
        (record) => {
          update(key, { status: "done", record, loaded: file.size, total: file.size, handle: undefined });
          uploaded(record);
          onUploaded(record);
        },
        (error: unknown) => {
          const cancelled = error instanceof ApiError && error.status === 0 && error.message === "Cancelled.";
          update(key, { status: cancelled ? "cancelled" : "failed", message: describeUploadError(error), handle: undefined });
        },
      );
    }
  }

  return (
    <Card title="Upload files" description="Into the project's files, or onto a property of a document. Types like executables are refused.">
      <div className="space-y-4">
        <fieldset className="min-w-0">
          <legend className="text-sm font-medium text-slate-700">Upload into</legend>
          <div className="mt-2 flex flex-wrap gap-x-6 gap-y-2">
            <label className="flex items-center gap-2 text-sm text-slate-700">
              <input type="radio" name="upload-target" checked={mode === "files"} onChange={() => setMode("files")} className="h-4 w-4 accent-indigo-600" />
              Project files (<span className="font-mono">_files</span>)
            </label>
            <label className="flex items-center gap-2 text-sm text-slate-700">
              <input type="radio" name="upload-target" checked={mode === "property"} onChange={() => setMode("property")} className="h-4 w-4 accent-indigo-600" />
              A document property
            </label>
          </div>
        </fieldset>
        {mode === "property" && (
          <div className="grid gap-4 sm:grid-cols-3">
            <SelectField label="Collection" value={collection} onChange={(e) => setCollection(e.target.value)}>
              <option value="">Choose...</option>
              {own.map((c) => (
                <option key={c._id} value={c._id}>
                  {c._id}
                </option>
              ))}
            </SelectField>
            <TextField label="Document ID" value={documentId} onChange={(e) => setDocumentId(e.target.value)} hint="The document must exist." />
            {collection ? (
              <PropertyField projectId={projectId} collectionId={collection} value={property} onChange={setProperty} />
            ) : (
              <TextField label="Property" value={property} onChange={(e) => setProperty(e.target.value)} placeholder="cover" />
            )}
          </div>
        )}
        <div
          onDragOver={(e) => {
            e.preventDefault();
            if (!dragging) setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(e) => {
            e.preventDefault();
            setDragging(false);
            if (e.dataTransfer.files.length) start(e.dataTransfer.files);
          }}
          data-testid="drop-zone"
          className={`flex flex-col items-center justify-center gap-2 rounded-lg border-2 border-dashed px-4 py-8 text-center text-sm ${
            dragging ? "border-indigo-500 bg-indigo-50" : "border-slate-300 bg-slate-50"
          } ${targetReady ? "" : "opacity-60"}`}
        >
          <p className="text-slate-600">{targetReady ? "Drag files here, or" : "Choose the collection, document and property first."}</p>
          <label
            htmlFor="file-picker"
            className={`inline-flex cursor-pointer items-center rounded-md bg-indigo-600 px-3.5 py-2 text-sm font-medium text-white shadow-sm hover:bg-indigo-500 has-[:focus-visible]:outline-2 ${
              targetReady ? "" : "pointer-events-none bg-indigo-300"
            }`}
          >
            Choose files
            <input
              id="file-picker"
              type="file"
              multiple={mode === "files"}
              disabled={!targetReady}
              className="sr-only"
              onChange={(e) => {
                if (e.target.files?.length) start(e.target.files);
                e.target.value = "";
              }}
            />
          </label>
        </div>
        {uploads.length > 0 && (
          <ul className="space-y-3" aria-label="Uploads">
            {uploads.map((upload) => (
              <UploadRow key={upload.key} upload={upload} onOpen={onUploaded} onDismiss={() => setUploads((list) => list.filter((u) => u.key !== upload.key))} />
            ))}
          </ul>
        )}
      </div>
    </Card>
  );
}

function PropertyField({ projectId, collectionId, value, onChange }: { projectId: string; collectionId: string; value: string; onChange: (value: string) => void }) {
  const schema = useCollection(projectId, collectionId).data?.schema;
  const suggestions = fileProperties(schema);
  return (
    <div>
      <TextField
        label="Property"
        value={value}
        list="file-property-suggestions"
        placeholder={suggestions[0] ?? "cover"}
        onChange={(e) => onChange(e.target.value)}
        hint={suggestions.length ? `File properties: ${suggestions.join(", ")}` : "Dotted paths like meta.cover work."}
      />
      <datalist id="file-property-suggestions">
        {suggestions.map((s) => (
          <option key={s} value={s} />
        ))}
      </datalist>
    </div>
  );
}

function UploadRow({ upload, onOpen, onDismiss }: { upload: Upload; onOpen: (file: FileRecord) => void; onDismiss: () => void }) {
  const percent = upload.total ? Math.min(100, Math.floor((upload.loaded / upload.total) * 100)) : 0;
  const shown = upload.status === "done" ? 100 : percent;
  const bar = { uploading: "bg-indigo-600", done: "bg-emerald-600", failed: "bg-red-500", cancelled: "bg-slate-400" }[upload.status];
  return (
    <li className="rounded-md border border-slate-200 p-3" data-testid="upload">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="min-w-0 flex-1">
          <p className="truncate text-sm font-medium text-slate-900" title={upload.name}>
            {upload.name}
          </p>
          <p className="text-xs text-slate-500" aria-live="polite">
            {upload.status === "uploading" && (percent < 100 ? `${percent}% · ${formatBytes(upload.loaded)} of ${formatBytes(upload.total)}` : "100% · storing...")}
            {upload.status === "done" && `Uploaded · ${formatBytes(upload.size)}`}
            {upload.status === "cancelled" && "Cancelled"}
            {upload.status === "failed" && "Not uploaded"}
          </p>
        </div>
        {upload.status === "uploading" && upload.handle && (
          <Button variant="secondary" className="px-2.5 py-1.5 text-xs" onClick={() => upload.handle?.cancel()} aria-label={`Cancel upload of ${upload.name}`}>
            Cancel
          </Button>
        )}
        {upload.status === "done" && upload.record && (
          <Button variant="ghost" className="px-2.5 py-1.5 text-xs" onClick={() => onOpen(upload.record!)}>
            Preview
          </Button>
        )}
        {upload.status !== "uploading" && (
          <Button variant="ghost" className="px-2.5 py-1.5 text-xs" onClick={onDismiss} aria-label={`Dismiss ${upload.name}`}>
            Dismiss
          </Button>
        )}
      </div>
      <div
        role="progressbar"
        aria-label={`Upload of ${upload.name}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={shown}
        aria-valuetext={`${shown}%`}
        className="mt-2 h-2 overflow-hidden rounded-full bg-slate-100"
      >
        <div className={`h-full ${bar} transition-[width] duration-150`} style={{ width: `${shown}%` }} />
      </div>
      {upload.status === "failed" && upload.message && (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {upload.message}
        </p>
      )}
    </li>
  );
}

/**
 * A refused upload in words: the property messages of a plain "Validation error" (e.g. the
 * document refused by its schema), or the message already made plain by uploadMessage.
 */
function describeUploadError(error: unknown): string {
  if (error instanceof ApiError && error.errors.length && (error.status !== 422 || error.message === "Validation error")) return describeError(error);
  return error instanceof Error ? error.message : String(error);
}

/**
 * A link, not a fetch: the browser streams the content to disk (see `downloadUrl`). A refused
 * download (e.g. the file was deleted meanwhile) shows in the browser's downloads as failed.
 */
function DownloadButton({ projectId, file, compact }: { projectId: string; file: FileRecord; compact?: boolean }) {
  return (
    <a
      href={downloadUrl(projectId, file._id)}
      download={file.name || file._id}
      aria-label={`Download ${file.name}`}
      className={buttonClass(compact ? "ghost" : "secondary", compact ? "px-2 py-1 text-xs" : "")}
    >
      Download
    </a>
  );
}

function FileList({ projectId, selected, onSelect }: { projectId: string; selected?: FileRecord; onSelect: (file: FileRecord | undefined) => void }) {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState("");
  const [kind, setKind] = useState("");
  const [view, setView] = useState<"list" | "grid">("list");
  const files = useFiles(projectId, page, 50, fileFilter(search, kind));
  const live = useLiveFeed({ project: projectId, collection: "_files", queryKeys: [queryKeys.files(projectId)] });
  const remove = useDeleteFile(projectId);
  const [deleting, setDeleting] = useState<FileRecord | undefined>();
  const items = files.data?.items ?? [];
  return (
    <Card title="Files" description="Every file of the project: uploaded here or onto document properties." actions={<LiveStatus feed={live} />}>
      <div className="mb-4 flex flex-wrap items-end gap-3">
        <label className="min-w-48 flex-1 text-sm text-slate-700">
          Search by name
          <input type="search" value={search} onChange={(e) => (setSearch(e.target.value), setPage(1))} className={`mt-1 ${inputClass}`} />
        </label>
        <label className="text-sm text-slate-700">
          Type
          <select value={kind} onChange={(e) => (setKind(e.target.value), setPage(1))} className={`mt-1 ${inputClass}`}>
            {FILE_KINDS.map((k) => (
              <option key={k.value} value={k.value}>
                {k.label}
              </option>
            ))}
          </select>
        </label>
        <div role="group" aria-label="View" className="inline-flex rounded-md border border-slate-300 p-0.5 text-xs">
          {(["list", "grid"] as const).map((v) => (
            <button
              key={v}
              type="button"
              aria-pressed={view === v}
              onClick={() => setView(v)}
              className={`rounded px-2.5 py-1.5 font-medium ${view === v ? "bg-indigo-600 text-white" : "text-slate-700 hover:bg-slate-100"}`}
            >
              {v === "list" ? "List" : "Grid"}
            </button>
          ))}
        </div>
      </div>
      {files.isPending && <p className="text-sm text-slate-500">Loading files...</p>}
      {files.isError && <Alert>{describeError(files.error)}</Alert>}
      {files.data && items.length === 0 && <p className="text-sm text-slate-500">{search || kind ? "No files match." : "No files yet."}</p>}
      {items.length > 0 && view === "grid" && (
        <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-4" aria-label="Files">
          {items.map((file) => (
            <li key={file._id} className={`min-w-0 rounded-md border border-slate-200 p-2 ${flashClass(live, file._id)}`} data-testid={`file-${file._id}`}>
              <button type="button" onClick={() => onSelect(file)} className="block w-full text-left" aria-label={`Preview ${file.name}`}>
                <Thumbnail projectId={projectId} file={file} />
                <span className="mt-1 block truncate text-xs font-medium text-slate-800" title={file.name}>
                  {file.name}
                </span>
              </button>
              <span className="block text-xs text-slate-500">{formatBytes(file.size)}</span>
            </li>
          ))}
        </ul>
      )}
      {items.length > 0 && view === "list" && (
        <ul className="divide-y divide-slate-100" aria-label="Files">
          {items.map((file) => (
            <li key={file._id} className={`flex flex-wrap items-center justify-between gap-2 py-3 ${flashClass(live, file._id)}`} data-testid={`file-${file._id}`}>
              <div className="min-w-0 flex-1">
                <button
                  type="button"
                  onClick={() => onSelect(file)}
                  className="block max-w-full truncate text-left text-sm font-medium text-indigo-700 hover:underline"
                  aria-current={selected?._id === file._id ? "true" : undefined}
                  title={file.name}
                >
                  {file.name}
                </button>
                <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-slate-500">
                  <span>{file.content_type}</span>
                  <span aria-hidden>·</span>
                  <span>{formatBytes(file.size)}</span>
                  <span aria-hidden>·</span>
                  <span>{file.date_created.slice(0, 16).replace("T", " ")} UTC</span>
                  {file.collection_id === "_files" ? (
                    <Badge>_files</Badge>
                  ) : (
                    <Link
                      href={`/projects/${projectId}/collections/${encodeURIComponent(file.collection_id)}?filter=${encodeURIComponent(JSON.stringify({ _id: file.document_id }))}`}
                      className="rounded-full bg-emerald-100 px-2 py-0.5 font-medium text-emerald-800 hover:underline"
                      aria-label={`Document ${file.collection_id}/${file.document_id}`}
                    >
                      {file.collection_id}/{file.document_id}
                    </Link>
                  )}
                </p>
              </div>
              <div className="flex items-center gap-1">
                <Button variant="ghost" className="px-2 py-1 text-xs" onClick={() => onSelect(file)} aria-label={`Preview ${file.name}`}>
                  Preview
                </Button>
                <CopyLink projectId={projectId} file={file} />
                <DownloadButton projectId={projectId} file={file} compact />
                <Button variant="ghost" className="px-2 py-1 text-xs text-red-700 hover:bg-red-50" onClick={() => setDeleting(file)} aria-label={`Delete ${file.name}`}>
                  Delete
                </Button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {files.data && files.data.pages > 1 && (
        <nav aria-label="Pages" className="mt-4 flex items-center justify-between text-sm text-slate-600">
          <span>
            Page {files.data.page} of {files.data.pages}
          </span>
          <span className="flex gap-2">
            <Button variant="secondary" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
              Previous
            </Button>
            <Button variant="secondary" disabled={page >= files.data.pages} onClick={() => setPage((p) => p + 1)}>
              Next
            </Button>
          </span>
        </nav>
      )}
      <ConfirmDialog
        open={!!deleting}
        title="Delete this file?"
        confirmLabel="Delete file"
        busy={remove.isPending}
        error={remove.error}
        onCancel={() => {
          remove.reset();
          setDeleting(undefined);
        }}
        onConfirm={() =>
          deleting &&
          remove.mutate(deleting, {
            onSuccess: () => {
              if (selected?._id === deleting._id) onSelect(undefined);
              setDeleting(undefined);
            },
          })
        }
      >
        <p>
          <span className="font-medium">{deleting?.name}</span> is deleted
          {deleting && deleting.collection_id !== "_files" ? `, and removed from ${deleting.collection_id}/${deleting.document_id}` : ""}. This cannot be undone.
        </p>
      </ConfirmDialog>
    </Card>
  );
}

const FILE_KINDS = [
  { value: "", label: "Any type" },
  { value: "image/", label: "Images" },
  { value: "video/", label: "Video" },
  { value: "audio/", label: "Audio" },
  { value: "application/pdf", label: "PDF" },
  { value: "text/", label: "Text" },
];

/** The name search (a case-insensitive substring, escaped) and the type as a `_files` filter. */
export function fileFilter(search: string, kind: string): Record<string, unknown> | undefined {
  const filter: Record<string, unknown> = {};
  if (search.trim()) filter.name = { $regex: search.trim().replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), $options: "i" };
  if (kind) filter.content_type = kind.endsWith("/") ? { $regex: `^${kind.replace("/", "\\/")}` } : kind;
  return Object.keys(filter).length ? filter : undefined;
}

/**
 * Copies the file's content address on the project's host; outside the dashboard it needs a
 * token (`Authorization: Token ...` or `?token=`).
 */
function CopyLink({ projectId, file }: { projectId: string; file: FileRecord }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      variant="ghost"
      className="px-2 py-1 text-xs"
      aria-label={`Copy content link of ${file.name}`}
      onClick={async () => {
        const link = `${location.protocol}//${projectId}.${location.host}${contentUrl(file._id)}`;
        try {
          await navigator.clipboard.writeText(link);
          setCopied(true);
          setTimeout(() => setCopied(false), 2000);
        } catch {
          window.prompt("Copy the content link", link);
        }
      }}
    >
      {copied ? "Copied" : "Copy link"}
    </Button>
  );
}

/** An image's thumbnail (fetched like a preview, small files only), or the type's name. */
function Thumbnail({ projectId, file }: { projectId: string; file: FileRecord }) {
  const [url, setUrl] = useState<string | undefined>();
  const image = file.content_type.startsWith("image/") && file.content_type !== "image/svg+xml" && file.size <= 2 * 1024 * 1024;
  useEffect(() => {
    if (!image) return;
    const controller = new AbortController();
    let objectUrl: string | undefined;
    fetchContent(projectId, file, controller.signal).then(
      (blob) => {
        objectUrl = URL.createObjectURL(blob);
        setUrl(objectUrl);
      },
      () => undefined,
    );
    return () => {
      controller.abort();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [projectId, file, image]);
  return (
    <span className="grid aspect-square place-items-center overflow-hidden rounded bg-slate-100 text-xs text-slate-500">
      {url ? <img src={url} alt="" className="h-full w-full object-cover" /> : file.content_type}
    </span>
  );
}
