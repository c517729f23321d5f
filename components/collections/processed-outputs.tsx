"use client";

import { useEffect, useState } from "react";
import { describeError } from "@/lib/client/api";
import { fetchContent, PREVIEW_LIMIT } from "@/lib/client/files";
import { formatBytes } from "@/lib/client/format";
import { previewKind } from "@/lib/client/json-editing";
import type { ProcessorValue } from "@/lib/client/processor-catalog";
import type { ArcaDocument, FileRecord } from "@/lib/client/types";
import { Card } from "@/components/ui";
import { orderedProperties } from "./schema-form";

/** The properties of a schema that carry processors, in `position` order, with their steps. */
export function processedProperties(schema: Record<string, unknown> | null | undefined): [string, ProcessorValue[]][] {
  return orderedProperties(schema).flatMap(([name, property]) => {
    const steps = (property as { processors?: unknown }).processors;
    return Array.isArray(steps) && steps.length > 0 ? [[name, steps as ProcessorValue[]] as [string, ProcessorValue[]]] : [];
  });
}

function isFileRecord(value: unknown): value is FileRecord {
  return typeof value === "object" && value !== null && typeof (value as FileRecord)._id === "string" && typeof (value as FileRecord).content_type === "string";
}

const HTML_KINDS = new Set(["markdown", "template"]);
const looksLikeHtml = (text: string) => /<[a-z][^>]*>/i.test(text);

/**
 * What a document's processors produced (docs/processors.md): image outputs as thumbnails, audio
 * (speech) as a player, both fetched with the project header into blob URLs; HTML (markdown,
 * templates, reader mode) as its text, never rendered; anything else as text or JSON.
 */
export function ProcessedOutputs({ projectId, schema, document }: { projectId: string; schema: Record<string, unknown> | null; document: ArcaDocument }) {
  const properties = processedProperties(schema);
  if (properties.length === 0) return null;
  return (
    <div className="mt-4" data-testid="processed-outputs">
      <Card title="Processed outputs" description="What this document's processors stored, as last saved.">
        <dl className="space-y-4">
          {properties.map(([name, steps]) => {
            const value = document[name];
            const last = steps[steps.length - 1]?.name;
            return (
              <div key={name} data-testid={`output-${name}`}>
                <dt className="text-sm font-medium text-slate-700">
                  <span className="font-mono">{name}</span> <span className="text-xs font-normal text-slate-500">({steps.map((s) => s.name).join(" → ")})</span>
                </dt>
                <dd className="mt-1 min-w-0">
                  <OutputValue projectId={projectId} value={value} html={HTML_KINDS.has(last) || (typeof value === "string" && looksLikeHtml(value))} />
                </dd>
              </div>
            );
          })}
        </dl>
      </Card>
    </div>
  );
}

function OutputValue({ projectId, value, html }: { projectId: string; value: unknown; html: boolean }) {
  if (value === undefined || value === null) return <p className="text-sm text-slate-500">Not set.</p>;
  if (isFileRecord(value)) return <FileOutput projectId={projectId} file={value} />;
  if (typeof value === "string") {
    return (
      <pre aria-label={html ? "HTML, shown as text" : undefined} className="max-h-64 overflow-auto whitespace-pre-wrap break-words rounded border border-slate-200 bg-slate-50 p-2 font-mono text-xs text-slate-800">
        {value}
      </pre>
    );
  }
  if (typeof value === "object") {
    return <pre className="max-h-64 overflow-auto whitespace-pre-wrap break-words rounded border border-slate-200 bg-slate-50 p-2 font-mono text-xs text-slate-800">{JSON.stringify(value, null, 2)}</pre>;
  }
  return <p className="font-mono text-sm text-slate-800">{String(value)}</p>;
}

function FileOutput({ projectId, file }: { projectId: string; file: FileRecord }) {
  const kind = previewKind(file.content_type);
  const shown = (kind === "image" || kind === "audio") && file.size <= PREVIEW_LIMIT;
  const [state, setState] = useState<{ url?: string; error?: unknown }>({});
  useEffect(() => {
    if (!shown) return;
    const controller = new AbortController();
    let url: string | undefined;
    fetchContent(projectId, file, controller.signal).then(
      (blob) => {
        url = URL.createObjectURL(blob);
        setState({ url });
      },
      (error: unknown) => {
        if (!(error instanceof DOMException && error.name === "AbortError")) setState({ error });
      },
    );
    return () => {
      controller.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [projectId, file, shown]);
  const caption = `${file.name} · ${file.content_type} · ${formatBytes(file.size)}`;
  return (
    <figure className="space-y-1">
      {state.error ? <p className="text-xs text-red-600">{describeError(state.error)}</p> : null}
      {shown && !state.url && !state.error && <p className="text-xs text-slate-500" role="status">Loading...</p>}
      {kind === "image" && state.url && (
        // A blob URL of bytes fetched with the project header; next/image cannot take it.
        // eslint-disable-next-line @next/next/no-img-element
        <img src={state.url} alt={`Thumbnail of ${file.name}`} className="max-h-32 max-w-48 rounded border border-slate-200 object-contain" />
      )}
      {kind === "audio" && state.url && <audio src={state.url} controls aria-label={`Play ${file.name}`} className="w-full" />}
      <figcaption className="text-xs text-slate-500">{caption}</figcaption>
    </figure>
  );
}
