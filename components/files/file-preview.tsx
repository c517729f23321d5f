"use client";

import { useEffect, useState } from "react";
import { describeError } from "@/lib/client/api";
import { fetchContent, PREVIEW_LIMIT } from "@/lib/client/files";
import { formatBytes } from "@/lib/client/format";
import { previewKind } from "@/lib/client/json-editing";
import type { FileRecord } from "@/lib/client/types";
import { Alert } from "@/components/ui";

const TEXT_LIMIT = 200_000;

/**
 * An inline preview of a file: its bytes fetched with the project header and shown through a blob
 * URL (images, audio, video, PDF) or as text. Active types (SVG, HTML, ...) are never rendered.
 */
export function FilePreview({ projectId, file }: { projectId: string; file: FileRecord }) {
  const kind = previewKind(file.content_type);
  const tooLarge = file.size > PREVIEW_LIMIT;
  const [state, setState] = useState<{ url?: string; text?: string; error?: unknown; loading: boolean }>({ loading: !!kind && !tooLarge });

  useEffect(() => {
    if (!kind || tooLarge) return;
    const controller = new AbortController();
    let url: string | undefined;
    setState({ loading: true });
    fetchContent(projectId, file, controller.signal).then(
      async (blob) => {
        if (kind === "text") {
          const text = await blob.slice(0, TEXT_LIMIT).text();
          setState({ text: blob.size > TEXT_LIMIT ? `${text}\n…` : text, loading: false });
        } else {
          url = URL.createObjectURL(blob);
          setState({ url, loading: false });
        }
      },
      (error: unknown) => {
        if (!(error instanceof DOMException && error.name === "AbortError")) setState({ error, loading: false });
      },
    );
    return () => {
      controller.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [projectId, file, kind, tooLarge]);

  if (!kind) return <p className="text-sm text-slate-500">No preview for {file.content_type}: download it to open it.</p>;
  if (tooLarge) return <p className="text-sm text-slate-500">Too large to preview here ({formatBytes(file.size)}; previews up to {formatBytes(PREVIEW_LIMIT)}): download it.</p>;
  if (state.loading) return <p className="text-sm text-slate-500" role="status">Loading preview...</p>;
  if (state.error) return <Alert>{describeError(state.error)}</Alert>;
  const label = `Preview of ${file.name}`;
  return (
    <div className="min-w-0" data-testid="file-preview">
      {kind === "image" && state.url && (
        // A blob URL of bytes fetched with the project header; next/image cannot take it.
        // eslint-disable-next-line @next/next/no-img-element
        <img src={state.url} alt={label} className="max-h-96 max-w-full rounded border border-slate-200 bg-[repeating-conic-gradient(#f1f5f9_0%_25%,#fff_0%_50%)] bg-[length:16px_16px] object-contain" />
      )}
      {kind === "audio" && state.url && <audio src={state.url} controls aria-label={label} className="w-full" />}
      {kind === "video" && state.url && <video src={state.url} controls aria-label={label} className="max-h-96 w-full rounded bg-black" />}
      {kind === "pdf" && state.url && <iframe src={state.url} title={label} className="h-96 w-full rounded border border-slate-200" />}
      {kind === "text" && state.text !== undefined && (
        <pre aria-label={label} className="max-h-96 overflow-auto whitespace-pre-wrap break-words rounded border border-slate-200 bg-slate-50 p-3 font-mono text-xs text-slate-800">
          {state.text}
        </pre>
      )}
    </div>
  );
}
