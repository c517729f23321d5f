/**
 * Import and export of a collection's documents from the dashboard. An export is a navigation to
 * the export URL (the browser streams it to disk; a fetch into a Blob would hold the whole file in
 * the tab), so the project rides in `?project=` and the cookie authorizes it. An import sends the
 * picked File itself as the body through XMLHttpRequest: the browser streams it from disk, and
 * `upload.onprogress` drives the progress bar (fetch has no upload progress).
 */
import { ApiError, type PropertyError } from "./api";
import type { UploadHandle, UploadProgress } from "./files";

export type TransferFormat = "jsonl" | "csv";
export type ImportMode = "create" | "upsert";

export interface ImportRowError {
  row: number;
  _id?: string;
  message: string;
  errors?: PropertyError[];
}

export interface ImportReport {
  created: number;
  updated: number;
  failed: number;
  errors: ImportRowError[];
  errors_truncated?: boolean;
}

const enc = encodeURIComponent;

export function exportUrl(project: string, collection: string, format: TransferFormat, view: { filter?: Record<string, unknown>; text?: string; sort?: string } = {}): string {
  const params = new URLSearchParams({ project, format });
  if (view.filter && Object.keys(view.filter).length > 0) params.set("filter", JSON.stringify(view.filter));
  if (view.text?.trim()) params.set("text", view.text.trim());
  if (view.sort) params.set("sort", view.sort);
  return `/api/collections/${enc(collection)}/export/?${params}`;
}

/** `.csv` (or a CSV type) is CSV; anything else is read as JSON Lines. */
export function formatOfFile(file: Pick<File, "name" | "type">): TransferFormat {
  return /\.csv$/i.test(file.name) || /^text\/csv\b/i.test(file.type) ? "csv" : "jsonl";
}

export function importDocuments(
  project: string,
  collection: string,
  file: File,
  mode: ImportMode,
  onProgress: (progress: UploadProgress) => void,
): Omit<UploadHandle, "done"> & { done: Promise<ImportReport> } {
  const xhr = new XMLHttpRequest();
  let cancelled = false;
  const format = formatOfFile(file);
  const done = new Promise<ImportReport>((resolve, reject) => {
    xhr.open("POST", `/api/collections/${enc(collection)}/import/?format=${format}&mode=${mode}`);
    xhr.setRequestHeader("X-Project", project);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.setRequestHeader("Content-Type", format === "csv" ? "text/csv" : "application/x-ndjson");
    xhr.upload.onprogress = (event) => onProgress({ loaded: event.loaded, total: event.lengthComputable ? event.total : file.size });
    xhr.onload = () => {
      let data: unknown;
      try {
        data = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        data = undefined;
      }
      if (xhr.status === 200 && data && typeof data === "object") return resolve(data as ImportReport);
      const message = typeof (data as { message?: unknown })?.message === "string" ? (data as { message: string }).message : `Import failed (${xhr.status})`;
      reject(new ApiError(xhr.status, xhr.status === 413 ? `${file.name} is larger than this server accepts. ${message}` : message));
    };
    xhr.onerror = () => reject(new ApiError(0, "The import failed: cannot reach the server."));
    xhr.onabort = () => reject(new ApiError(0, cancelled ? "Cancelled: rows sent before that may have been imported." : "The import was interrupted."));
    xhr.send(file);
  });
  return {
    done,
    cancel: () => {
      cancelled = true;
      xhr.abort();
    },
  };
}
