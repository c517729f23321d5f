/**
 * File transfers for the dashboard. Uploads go through XMLHttpRequest because fetch has no upload
 * progress; previews fetch content with `X-Project` (the cookie is for the bare host, and an
 * `<img src>` cannot send headers) and show it through a blob URL; downloads are links.
 */
import { ApiError, type PropertyError } from "./api";
import type { ArcaDocument, FileRecord } from "./types";

const enc = encodeURIComponent;

export const FILES_PATH = "/api/collections/_files/documents/";
/** Previews fetch the whole file into memory: only up to this size. */
export const PREVIEW_LIMIT = 20 * 1024 * 1024;

export type UploadTarget = { kind: "files" } | { kind: "property"; collection: string; document: string; property: string };

export interface UploadHandle {
  /** Resolves with the stored file record; rejects with ApiError (status 0 when cancelled or offline). */
  done: Promise<FileRecord>;
  cancel: () => void;
}

export interface UploadProgress {
  loaded: number;
  total: number;
}

export function uploadUrl(target: UploadTarget): string {
  if (target.kind === "files") return FILES_PATH;
  const path = target.property.split(".").map(enc).join("/");
  return `/api/collections/${enc(target.collection)}/documents/${enc(target.document)}/${path}/`;
}

/**
 * Uploads one file: `POST` into `_files` (part `file`) or `PUT` onto a document property (one file
 * part sets it). `onProgress` gets the browser's real upload progress events.
 */
export function uploadFile(project: string, target: UploadTarget, file: File, onProgress: (progress: UploadProgress) => void): UploadHandle {
  const xhr = new XMLHttpRequest();
  let cancelled = false;
  const done = new Promise<FileRecord>((resolve, reject) => {
    xhr.open(target.kind === "files" ? "POST" : "PUT", uploadUrl(target));
    xhr.setRequestHeader("X-Project", project);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.onprogress = (event) => onProgress({ loaded: event.loaded, total: event.lengthComputable ? event.total : file.size });
    xhr.onload = () => {
      let data: unknown;
      try {
        data = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        data = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        const record = target.kind === "files" ? (data as FileRecord) : recordAt(data as ArcaDocument, target.property, file.name);
        if (record) resolve(record);
        else reject(new ApiError(xhr.status, "The upload was stored, but its file record is not in the answer."));
        return;
      }
      const body = typeof data === "object" && data !== null ? (data as { message?: unknown; errors?: unknown }) : {};
      const message = typeof body.message === "string" ? body.message : `Upload failed (${xhr.status})`;
      const errors = Array.isArray(body.errors) ? (body.errors as PropertyError[]) : [];
      reject(new ApiError(xhr.status, uploadMessage(xhr.status, message, file.name), errors));
    };
    xhr.onerror = () => reject(new ApiError(0, "The upload failed: cannot reach the server."));
    xhr.onabort = () => reject(new ApiError(0, cancelled ? "Cancelled." : "The upload was interrupted."));
    const form = new FormData();
    form.append("file", file, file.name);
    xhr.send(form);
  });
  return {
    done,
    cancel: () => {
      cancelled = true;
      xhr.abort();
    },
  };
}

/** The API's answers to a refused upload, said plainly. */
export function uploadMessage(status: number, message: string, name: string): string {
  if (status === 422) {
    const type = /content type (\S+) is not allowed/i.exec(message)?.[1];
    if (type) return `This file type is not allowed: ${type} (${name}).`;
  }
  if (status === 413) return `${name} is larger than this server accepts.`;
  if (status === 402) return `The project's files size limit would be exceeded by ${name}.`;
  return message;
}

/**
 * The file record of a property upload's answer: the record itself (a property PUT answers the
 * property's new value, CONTRACT §5), an array of them, or (older servers) the whole document
 * holding it at the dotted property. The last one of an array, preferring the uploaded name.
 */
function recordAt(answer: ArcaDocument | FileRecord | FileRecord[] | undefined, property: string, name: string): FileRecord | undefined {
  let value: unknown = answer;
  const isRecord = (v: unknown) => typeof v === "object" && v !== null && "md5" in v;
  if (!isRecord(value) && !Array.isArray(value))
    for (const part of property.split(".")) value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  if (Array.isArray(value)) value = value.findLast((item) => item?.name === name) ?? value.at(-1);
  return typeof value === "object" && value !== null && "md5" in value ? (value as FileRecord) : undefined;
}

export function contentUrl(fileId: string): string {
  return `${FILES_PATH}${enc(fileId)}/content/`;
}

/** The bytes of a file, as a Blob of its content type (for previews). */
export async function fetchContent(project: string, file: Pick<FileRecord, "_id" | "content_type">, signal?: AbortSignal): Promise<Blob> {
  let response: Response;
  try {
    response = await fetch(contentUrl(file._id), { headers: { "x-project": project }, credentials: "same-origin", signal });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new ApiError(0, "Cannot reach the server. Check your connection and try again.");
  }
  if (!response.ok) {
    const data = await response.json().catch(() => undefined);
    throw new ApiError(response.status, typeof data?.message === "string" ? data.message : `Download failed (${response.status})`);
  }
  const blob = await response.blob();
  return blob.type ? blob : new Blob([blob], { type: file.content_type });
}

/**
 * The address a download link navigates to: the content on the bare host with `?project=` (a
 * navigation cannot send X-Project; the dashboard's cookie authorizes it, CONTRACT §1). The browser
 * streams it to disk, so the file never passes through the tab's memory; the API answers it as an
 * attachment under `Content-Security-Policy: sandbox`, so nothing uploaded renders on this origin.
 */
export function downloadUrl(project: string, fileId: string): string {
  return `${contentUrl(fileId)}?project=${enc(project)}`;
}
