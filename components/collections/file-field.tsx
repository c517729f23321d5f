"use client";

import { useEffect, useRef, useState } from "react";
import { downloadUrl, uploadFile, type UploadHandle } from "@/lib/client/files";
import { isFileRecordLike } from "@/lib/client/json-editing";
import type { FileRecord } from "@/lib/client/types";
import { FilePreview } from "@/components/files/file-preview";
import { Button, buttonClass } from "@/components/ui";

/**
 * A `file` property in the document form (issue 14): the current file (name, preview, download)
 * and an upload onto the property (`PUT .../documents/<doc>/<property>/`, one multipart part,
 * through the Files page's XHR helper for real progress and Cancel). The upload is its own
 * request and stores at once (the old file goes), independent of the form's Save; the form then
 * holds the new record as already saved, so the next Save sends nothing for it.
 * A document not created yet has nowhere to put a file: the field says so, and "Create, then
 * upload files" keeps the panel open on the new document so the upload follows at once.
 */
export function FileField({
  projectId,
  collectionId,
  documentId,
  property,
  value,
  onUploaded,
  onRemove,
  id,
  describedBy,
  disabled,
}: {
  projectId: string;
  collectionId: string;
  /** Undefined while creating. */
  documentId?: string;
  property: string;
  value: unknown;
  onUploaded: (record: FileRecord) => void;
  /** Takes the file out of the form's document: the document's Save then unsets the property, which deletes the file. */
  onRemove: () => void;
  id: string;
  describedBy?: string;
  disabled?: boolean;
}) {
  const file = isFileRecordLike(value) ? (value as unknown as FileRecord) : undefined;
  // Whether the form opened with a file here: once removed, the Save deletes it (said below).
  const [hadFile] = useState(!!file);
  const [progress, setProgress] = useState<{ loaded: number; total: number } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const handle = useRef<UploadHandle | undefined>(undefined);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => () => handle.current?.cancel(), []);

  async function upload(chosen: File) {
    if (!documentId) return;
    setError(undefined);
    setProgress({ loaded: 0, total: chosen.size });
    handle.current = uploadFile(projectId, { kind: "property", collection: collectionId, document: documentId, property }, chosen, setProgress);
    try {
      onUploaded(await handle.current.done);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      handle.current = undefined;
      setProgress(undefined);
      if (input.current) input.current.value = "";
    }
  }

  const percent = progress && progress.total > 0 ? Math.round((progress.loaded / progress.total) * 100) : 0;
  return (
    <div className="mt-1 space-y-2" data-testid={`file-field-${property}`}>
      {file ? (
        <div className="space-y-2 rounded-md border border-slate-200 p-2">
          <p className="flex flex-wrap items-center gap-2 text-sm">
            <span className="font-mono">{file.name}</span>
            <a href={downloadUrl(projectId, file._id)} download={file.name || file._id} className={buttonClass("ghost", "px-2 py-1 text-xs")} aria-label={`Download ${file.name}`}>
              Download
            </a>
            {!disabled && !progress && (
              <Button variant="ghost" className="px-2 py-1 text-xs text-red-700 hover:bg-red-50" onClick={onRemove} aria-label={`Remove ${file.name} from ${property}`}>
                Remove
              </Button>
            )}
          </p>
          <FilePreview projectId={projectId} file={file} />
        </div>
      ) : (
        <p className="text-sm text-slate-600">No file.</p>
      )}
      {!file && hadFile && <p className="text-xs text-slate-500">The file is deleted when you save the document.</p>}
      {documentId ? (
        <div className="flex flex-wrap items-center gap-2">
          <input
            ref={input}
            id={id}
            type="file"
            disabled={disabled || !!progress}
            aria-describedby={describedBy}
            onChange={(e) => {
              const chosen = e.target.files?.[0];
              if (chosen) void upload(chosen);
            }}
            className="text-sm file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-1.5 file:text-sm file:font-medium"
          />
          {progress && (
            <>
              <div
                role="progressbar"
                aria-label={`Uploading to ${property}`}
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={percent}
                className="h-2 w-32 overflow-hidden rounded bg-slate-200"
              >
                <div className="h-full bg-indigo-600 transition-[width]" style={{ width: `${percent}%` }} />
              </div>
              <Button variant="ghost" className="px-2 py-1 text-xs" onClick={() => handle.current?.cancel()}>
                Cancel upload
              </Button>
            </>
          )}
        </div>
      ) : (
        <p id={id} className="text-sm text-slate-500">
          Create the document first (&ldquo;Create, then upload files&rdquo; keeps this form open): a file is uploaded onto a saved document.
        </p>
      )}
      {error && (
        <p role="alert" className="text-xs text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}
