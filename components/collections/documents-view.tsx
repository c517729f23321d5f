"use client";

import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { ApiError, describeError } from "@/lib/client/api";
import { queryKeys, useCollection, useCreateDocument, useDeleteDocument, useDeleteDocuments, useDocuments, usePatchDocument, useReplaceDocument, type DocumentQuery } from "@/lib/client/hooks";
import { cellText, documentColumns, documentEdit, parseFilter, parseJsonObject } from "@/lib/client/json-editing";
import type { ArcaDocument, CollectionDefinition } from "@/lib/client/types";
import { Alert, Button, buttonClass, Card, ConfirmDialog, inputClass, JsonField } from "@/components/ui";
import { DocumentTransfer } from "./document-transfer";
import { FilterBuilder } from "./filter-builder";
import { orderedProperties, SchemaForm } from "./schema-form";
import { flashClass, useLiveFeed, type LiveFeed } from "@/lib/client/use-live-feed";
import { LiveStatus } from "@/components/live/live-status";
import { ProcessedOutputs } from "./processed-outputs";
import { quickSearchFields, quickSearchFilter } from "@/lib/client/quick-search";
import { template } from "@/lib/client/document-template";

const PER_PAGE = 25;
const PAGE_SIZES = [10, 25, 50, 100, 250];

/** System collections whose records only the server writes (CONTRACT §10): no New, Edit or Delete. */
const READ_ONLY = new Set(["_usage", "_debug", "_hooks_history"]);
/** Notifications may only be deleted. */
const DELETE_ONLY = new Set(["_notification", "_notifications"]);
/**
 * System collections only owners and admins write (members get 403), each with a page of its own.
 * A token is made there, never here: the creation answer is the only time its secret is shown.
 */
const MANAGED: Record<string, { page: string; label: string }> = {
  _tokens: { page: "tokens", label: "New token" },
  _hooks: { page: "hooks/new", label: "New hook" },
  _users: { page: "members", label: "Invite a member" },
};
/** Records of user collections and `_files` carry files; deleting them removes those too. */
const hasFiles = (collectionId: string) => !collectionId.startsWith("_") || collectionId === "_files";

/** The table's view as it is kept in the address: reload keeps it, a link shares it. */
interface TableView {
  page: number;
  perPage: number;
  sort?: string;
  filter?: Record<string, unknown>;
  text: string;
  /** The quick search (no text index needed): a scan, see lib/client/quick-search.ts. */
  q: string;
}

function readView(params: URLSearchParams): TableView {
  const page = Number(params.get("page"));
  const perPage = Number(params.get("per_page"));
  let filter: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(params.get("filter") ?? "");
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) filter = parsed as Record<string, unknown>;
  } catch {
    // A hand-edited address with broken JSON: show everything rather than fail.
  }
  return {
    page: Number.isInteger(page) && page > 0 ? page : 1,
    perPage: Number.isInteger(perPage) && perPage > 0 && perPage <= 1000 ? perPage : PER_PAGE,
    sort: params.get("sort") || undefined,
    filter,
    text: params.get("text") ?? "",
    q: params.get("q") ?? "",
  };
}

function writeView(view: TableView): string {
  const params = new URLSearchParams();
  if (view.page > 1) params.set("page", String(view.page));
  if (view.perPage !== PER_PAGE) params.set("per_page", String(view.perPage));
  if (view.sort) params.set("sort", view.sort);
  if (view.filter) params.set("filter", JSON.stringify(view.filter));
  if (view.text) params.set("text", view.text);
  if (view.q) params.set("q", view.q);
  const query = params.toString();
  return query ? `?${query}` : "";
}

type Editing = { mode: "create" } | { mode: "edit"; document: ArcaDocument };

/**
 * A collection's documents: a paginated table (columns from the schema or the documents), a
 * JSON filter box, sorting by column, full-text search when there is a text index, a JSON editor
 * for create/edit, and deletion of one or several (in one request).
 */
export function DocumentsView({ projectId, collectionId, canManage }: { projectId: string; collectionId: string; canManage: boolean }) {
  const collection = useCollection(projectId, collectionId);
  const searchParams = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const view = readView(new URLSearchParams(searchParams.toString()));
  const { page, perPage, sort, filter, text, q } = view;
  const setView = (change: Partial<TableView>) => router.replace(`${pathname}${writeView({ ...view, ...change })}`, { scroll: false });
  const setPage = (next: number) => setView({ page: next });
  const [filterText, setFilterText] = useState(() => (filter ? JSON.stringify(filter, null, 2) : ""));
  const [searchText, setSearchText] = useState(text);
  const [quickText, setQuickText] = useState(q);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<Editing | undefined>();
  const [building, setBuilding] = useState(false);
  const [hidden, setHidden] = useHiddenColumns(projectId, collectionId);
  const definition = collection.data;
  const quickFields = quickSearchFields(definition?.schema);
  // Until the definition is here the fields are unknown: no query with a half-built search.
  const query: DocumentQuery = { page, perPage, sort, filter: quickSearchFilter(q, quickFields, filter), text };
  const documents = useDocuments(projectId, collectionId, query, { enabled: !q || !!definition });
  // Of the system collections only _files has a change feed.
  // A page past the end (its last rows deleted, an old link) shows the last page, not "No documents yet."
  const lastPage = documents.data ? Math.max(1, documents.data.pages) : undefined;
  useEffect(() => {
    if (lastPage !== undefined && page > lastPage) setPage(lastPage);
    // Not on setPage: it is a new function each render.
  }, [lastPage, page]);
  const live = useLiveFeed({ project: projectId, collection: collectionId, queryKeys: [queryKeys.documents(projectId, collectionId), queryKeys.collection(projectId, collectionId)], enabled: !collectionId.startsWith("_") || collectionId === "_files" });

  const managed = MANAGED[collectionId];
  const readOnly = READ_ONLY.has(collectionId) || (managed !== undefined && !canManage);
  const canEdit = !readOnly && !DELETE_ONLY.has(collectionId);
  const canCreate = canEdit && managed === undefined;
  const textIndex = definition?.indexes?.find((index) => index.type === "text");
  const items = documents.data?.items ?? [];
  const allColumns = documentColumns(definition?.schema, items);
  const columns = allColumns.filter((column) => !hidden.includes(column));
  const parsedFilter = parseFilter(filterText);
  const queryError = documents.error instanceof ApiError && documents.error.status === 400 ? documents.error : undefined;
  // A 400 answers the filter or the search, whichever was given (the filter when both).
  const filterError = queryError && filter ? queryError.message : undefined;
  const searchError = queryError && !filter && text ? queryError.message : undefined;
  const quickError = queryError && !filter && !text && q ? queryError.message : undefined;
  const otherError = documents.isError && !filterError && !searchError && !quickError ? documents.error : undefined;

  function applyFilter(event: React.FormEvent) {
    event.preventDefault();
    if (!parsedFilter.ok) return;
    setView({ filter: parsedFilter.value, page: 1 });
    setSelected(new Set());
  }

  function toggleSort(column: string) {
    setView({ sort: sort === column ? `-${column}` : sort === `-${column}` ? undefined : column, page: 1 });
  }

  return (
    <div className="space-y-6">
      {editing && definition && (
        <SidePanel label={editing.mode === "edit" ? `Document ${editing.document._id}` : "New document"} onClose={() => setEditing(undefined)}>
          <DocumentEditor
            key={editing.mode === "edit" ? editing.document._id : "new"}
            projectId={projectId}
            collection={definition}
            editing={editing}
            onDone={() => setEditing(undefined)}
            onCreated={(document) => setEditing({ mode: "edit", document })}
          />
          {editing.mode === "edit" && <ProcessedOutputs projectId={projectId} schema={definition.schema} document={editing.document} />}
        </SidePanel>
      )}

      <Card
        title="Documents"
        actions={
          <div className="flex gap-2">
            {/* User collections only: system ones have their own records and routes (404 here). */}
            {!collectionId.startsWith("_") && <DocumentTransfer projectId={projectId} collectionId={collectionId} view={{ filter: query.filter, text, sort }} />}
            {!editing && canCreate && (
              <Button onClick={() => setEditing({ mode: "create" })} disabled={!definition}>
                New document
              </Button>
            )}
            {managed && canManage && (
              <Link href={`/projects/${projectId}/${managed.page}`} className={buttonClass()}>
                {managed.label}
              </Link>
            )}
          </div>
        }
      >
        <div className="grid gap-4 lg:grid-cols-2">
          <form onSubmit={applyFilter} className="min-w-0" aria-label="Filter documents">
            <JsonField
              label="Filter"
              name="filter"
              rows={2}
              value={filterText}
              onChange={setFilterText}
              // The server's answer was about the filter applied: shown while the box still holds it.
              errors={[...(parsedFilter.ok ? [] : [parsedFilter.error]), ...(filterError && parsedFilter.ok && JSON.stringify(parsedFilter.value) === JSON.stringify(filter) ? [filterError] : [])]}
              hint={
                <>
                  MongoDB-style JSON, e.g. <code>{'{"year": {"$gte": 2000}}'}</code>. Empty shows everything.
                </>
              }
            />
            <div className="mt-2 flex gap-2">
              <Button type="submit" variant="secondary" disabled={!parsedFilter.ok}>
                Apply filter
              </Button>
              <Button variant="ghost" aria-expanded={building} onClick={() => setBuilding((on) => !on)}>
                {building ? "Hide builder" : "Build filter"}
              </Button>
              {filter && (
                <Button
                  variant="ghost"
                  onClick={() => {
                    setFilterText("");
                    setView({ filter: undefined, page: 1 });
                  }}
                >
                  Clear
                </Button>
              )}
            </div>
            {building && (
              <FilterBuilder
                properties={allColumns}
                onUse={(built) => {
                  setFilterText(Object.keys(built).length ? JSON.stringify(built, null, 2) : "");
                  setView({ filter: Object.keys(built).length ? built : undefined, page: 1 });
                  setSelected(new Set());
                }}
              />
            )}
          </form>
          {textIndex && (
            <form
              className="min-w-0"
              role="search"
              aria-label="Search documents"
              onSubmit={(e) => {
                e.preventDefault();
                setView({ text: searchText.trim(), page: 1 });
              }}
            >
              <label htmlFor="document-search" className="block text-sm font-medium text-slate-700">
                Full-text search
              </label>
              <div className="mt-1 flex gap-2">
                <input
                  id="document-search"
                  type="search"
                  value={searchText}
                  onChange={(e) => setSearchText(e.target.value)}
                  placeholder={`Words in ${textIndex.property}`}
                  aria-invalid={searchError ? true : undefined}
                  aria-describedby={searchError ? "document-search-error" : "document-search-hint"}
                  className={inputClass}
                />
                <Button type="submit" variant="secondary">
                  Search
                </Button>
              </div>
              <p id="document-search-hint" className="mt-1 text-xs text-slate-500">
                Searches <span className="font-mono">{textIndex.property}</span>: words, &quot;a phrase&quot;, -without, or.
              </p>
              {searchError && (
                <p id="document-search-error" className="mt-1 text-xs text-red-600">
                  {searchError}
                </p>
              )}
            </form>
          )}
          {!textIndex && (
            <form
              className="min-w-0"
              role="search"
              aria-label="Quick search"
              onSubmit={(e) => {
                e.preventDefault();
                setView({ q: quickText.trim(), page: 1 });
                setSelected(new Set());
              }}
            >
              <label htmlFor="document-quick-search" className="block text-sm font-medium text-slate-700">
                Quick search
              </label>
              <div className="mt-1 flex gap-2">
                <input
                  id="document-quick-search"
                  type="search"
                  value={quickText}
                  onChange={(e) => setQuickText(e.target.value)}
                  placeholder={`Text in ${quickFields.join(", ")}`}
                  aria-invalid={quickError ? true : undefined}
                  aria-describedby={quickError ? "document-quick-search-error" : "document-quick-search-hint"}
                  className={inputClass}
                />
                <Button type="submit" variant="secondary">
                  Search
                </Button>
                {q && (
                  <Button
                    variant="ghost"
                    onClick={() => {
                      setQuickText("");
                      setView({ q: "", page: 1 });
                    }}
                  >
                    Clear
                  </Button>
                )}
              </div>
              <p id="document-quick-search-hint" className="mt-1 text-xs text-slate-500">
                Any case, anywhere in {quickFields.map((f, i) => (
                  <span key={f}>
                    {i > 0 && ", "}
                    <span className="font-mono">{f}</span>
                  </span>
                ))}
                . No text index here, so every document is scanned: fine for thousands, slow for millions.
              </p>
              {quickError && (
                <p id="document-quick-search-error" className="mt-1 text-xs text-red-600">
                  {quickError}
                </p>
              )}
            </form>
          )}
        </div>

        <div className="mt-6">
          {allColumns.length > 1 && <ColumnPicker columns={allColumns} hidden={hidden} onChange={setHidden} />}
          {(!collectionId.startsWith("_") || collectionId === "_files") && <LiveStatus feed={live} />}
          {collection.isError && <Alert>{describeError(collection.error)}</Alert>}
          {otherError && <Alert>{describeError(otherError)}</Alert>}
          {documents.isPending && <p className="text-sm text-slate-500">Loading documents...</p>}
          {documents.data && (
            <DocumentTable
              projectId={projectId}
              collectionId={collectionId}
              columns={columns}
              items={items}
              sort={sort}
              onSort={toggleSort}
              selected={selected}
              onSelect={setSelected}
              onEdit={canEdit ? (document) => setEditing({ mode: "edit", document }) : undefined}
              canDelete={!readOnly}
              stale={documents.isPlaceholderData || !!queryError}
              filtered={!!filter || !!text || !!q}
              live={live}
            />
          )}
          {documents.data && (
            <nav aria-label="Pages" className="mt-4 flex flex-wrap items-center justify-between gap-2 text-sm text-slate-600">
              <span data-testid="documents-total">
                {documents.data.total.toLocaleString("en")} {documents.data.total === 1 ? "document" : "documents"} · page {documents.data.page} of {documents.data.pages}
              </span>
              <span className="flex flex-wrap items-center gap-2">
                <label className="flex items-center gap-1.5">
                  <span>Per page</span>
                  <select
                    value={perPage}
                    onChange={(e) => setView({ perPage: Number(e.target.value), page: 1 })}
                    className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-600 dark:bg-slate-900"
                  >
                    {(PAGE_SIZES.includes(perPage) ? PAGE_SIZES : [...PAGE_SIZES, perPage].sort((a, b) => a - b)).map((size) => (
                      <option key={size} value={size}>
                        {size}
                      </option>
                    ))}
                  </select>
                </label>
                <Button variant="secondary" disabled={page <= 1} onClick={() => setPage(Math.max(1, page - 1))}>
                  Previous
                </Button>
                <JumpToPage page={page} pages={documents.data.pages} onJump={setPage} />
                <Button variant="secondary" disabled={page >= documents.data.pages} onClick={() => setPage(page + 1)}>
                  Next
                </Button>
              </span>
            </nav>
          )}
        </div>
      </Card>
    </div>
  );
}

function DocumentTable({
  projectId,
  collectionId,
  columns,
  items,
  sort,
  onSort,
  selected,
  onSelect,
  onEdit,
  canDelete,
  stale,
  filtered,
  live,
}: {
  projectId: string;
  collectionId: string;
  columns: string[];
  items: ArcaDocument[];
  sort?: string;
  onSort: (column: string) => void;
  selected: Set<string>;
  onSelect: (selected: Set<string>) => void;
  /** Absent where documents cannot be edited (read-only system collections). */
  onEdit?: (document: ArcaDocument) => void;
  canDelete: boolean;
  stale: boolean;
  filtered: boolean;
  live?: LiveFeed;
}) {
  const [widths, setWidth] = useColumnWidths(projectId, collectionId);
  const removeOne = useDeleteDocument(projectId, collectionId);
  const removeMany = useDeleteDocuments(projectId, collectionId);
  const [deleting, setDeleting] = useState<ArcaDocument | undefined>();
  const [bulk, setBulk] = useState(false);
  const [deleted, setDeleted] = useState<number | undefined>();
  const ids = items.map((d) => d._id);
  const allSelected = ids.length > 0 && ids.every((id) => selected.has(id));
  const toggle = (id: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    onSelect(next);
  };

  if (items.length === 0) return <p className="text-sm text-slate-500">{filtered ? "No documents match." : "No documents yet."}</p>;

  return (
    <div className="space-y-3">
      {deleted !== undefined && <Alert tone="success">{`Deleted ${deleted} ${deleted === 1 ? "document" : "documents"}.`}</Alert>}
      {selected.size > 0 && (
        <div className="flex flex-wrap items-center gap-3 rounded-md bg-slate-100 px-3 py-2 text-sm">
          <span>{selected.size} selected</span>
          <Button variant="danger" className="px-2.5 py-1.5 text-xs" onClick={() => setBulk(true)}>
            Delete selected
          </Button>
          <Button variant="ghost" className="px-2.5 py-1.5 text-xs" onClick={() => onSelect(new Set())}>
            Clear selection
          </Button>
        </div>
      )}
      <div className={`relative overflow-x-auto rounded-md border border-slate-200 ${stale ? "opacity-60" : ""}`}>
        <table className="w-full text-sm" aria-label={`Documents of ${collectionId}`}>
          <thead className="bg-slate-50 text-left text-xs text-slate-600">
            <tr>
              {canDelete && (
                <th scope="col" className="w-8 px-3 py-2">
                  <input
                    type="checkbox"
                    aria-label="Select all documents on this page"
                    checked={allSelected}
                    onChange={(e) => onSelect(e.target.checked ? new Set([...selected, ...ids]) : new Set([...selected].filter((id) => !ids.includes(id))))}
                    className="h-4 w-4 accent-indigo-600"
                  />
                </th>
              )}
              {columns.map((column) => {
                const direction = sort === column ? "ascending" : sort === `-${column}` ? "descending" : undefined;
                const width = widths[column];
                return (
                  <th
                    key={column}
                    scope="col"
                    aria-sort={direction ?? "none"}
                    className="relative px-3 py-2 font-medium"
                    style={width ? { width, minWidth: width, maxWidth: width } : undefined}
                    data-testid={`column-${column}`}
                  >
                    <button
                      type="button"
                      onClick={() => onSort(column)}
                      className="inline-flex max-w-full items-center gap-1 overflow-hidden whitespace-nowrap font-mono hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
                      // A set width wins over the name's length (cells' own max-width is not honoured in tables).
                      style={width ? { maxWidth: width - CELL_PADDING } : undefined}
                      title={`Sort by ${column}`}
                    >
                      {column}
                      <span aria-hidden className="text-slate-400">
                        {direction === "ascending" ? "▲" : direction === "descending" ? "▼" : "↕"}
                      </span>
                    </button>
                    <ColumnResizer column={column} width={width} onResize={(next) => setWidth(column, next)} />
                  </th>
                );
              })}
              {(onEdit || canDelete) && (
                // Pinned: with many columns the actions stay in view while the rest scrolls.
                <th scope="col" className="sticky right-0 bg-slate-50 px-3 py-2 text-right font-medium shadow-[-6px_0_6px_-6px_rgba(15,23,42,0.25)] dark:bg-slate-800">
                  <span className="sr-only">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {items.map((document) => (
              <tr
                key={document._id}
                data-testid={`document-${document._id}`}
                // A click on the row opens it (the Edit button is the keyboard's way to the same panel).
                onClick={(e) => onEdit && !(e.target as HTMLElement).closest("button, input, a, label, select") && onEdit(document)}
                className={`${onEdit ? "cursor-pointer hover:bg-slate-50 dark:hover:bg-slate-800" : ""} ${selected.has(document._id) ? "bg-indigo-50/50" : ""} ${flashClass(live, document._id)}`}
              >
                {canDelete && (
                  <td className="px-3 py-2">
                    <input
                      type="checkbox"
                      aria-label={`Select ${document._id}`}
                      checked={selected.has(document._id)}
                      onChange={(e) => toggle(document._id, e.target.checked)}
                      className="h-4 w-4 accent-indigo-600"
                    />
                  </td>
                )}
                {columns.map((column) => (
                  <td
                    key={column}
                    className={`truncate px-3 py-2 ${widths[column] ? "" : "max-w-64"} ${column === "_id" ? "font-mono text-xs text-slate-700" : ""}`}
                    title={cellText(document[column], 2000)}
                  >
                    {widths[column] ? (
                      <div className="truncate" style={{ maxWidth: widths[column] - CELL_PADDING }}>
                        {cellText(document[column])}
                      </div>
                    ) : (
                      cellText(document[column])
                    )}
                  </td>
                ))}
                {(onEdit || canDelete) && (
                  <td
                    className={`sticky right-0 whitespace-nowrap px-3 py-2 text-right shadow-[-6px_0_6px_-6px_rgba(15,23,42,0.25)] ${selected.has(document._id) ? "bg-indigo-50" : "bg-white"} dark:bg-slate-900`}
                    data-testid="row-actions"
                  >
                    {onEdit && (
                      <Button variant="ghost" className="px-2 py-1 text-xs" onClick={() => onEdit(document)} aria-label={`Edit ${document._id}`}>
                        Edit
                      </Button>
                    )}
                    {canDelete && (
                      <Button variant="ghost" className="px-2 py-1 text-xs text-red-700 hover:bg-red-50" onClick={() => setDeleting(document)} aria-label={`Delete ${document._id}`}>
                        Delete
                      </Button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ConfirmDialog
        open={!!deleting}
        title="Delete this document?"
        confirmLabel="Delete document"
        busy={removeOne.isPending}
        error={removeOne.error}
        onCancel={() => {
          removeOne.reset();
          setDeleting(undefined);
        }}
        onConfirm={() =>
          deleting &&
          removeOne.mutate(deleting._id, {
            onSuccess: () => {
              toggle(deleting._id, false);
              setDeleted(1);
              setDeleting(undefined);
            },
          })
        }
      >
        <p>
          <span className="font-mono font-medium">{deleting?._id}</span>
          {hasFiles(collectionId) ? " and its files are deleted" : " is deleted"}. This cannot be undone.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={bulk}
        title={`Delete ${selected.size} ${selected.size === 1 ? "document" : "documents"}?`}
        confirmLabel="Delete documents"
        busy={removeMany.isPending}
        error={removeMany.error}
        onCancel={() => {
          removeMany.reset();
          setBulk(false);
        }}
        onConfirm={() =>
          removeMany.mutate([...selected], {
            onSuccess: (answer) => {
              setDeleted(answer.deleted);
              onSelect(new Set());
              setBulk(false);
            },
          })
        }
      >
        <p>The selected {hasFiles(collectionId) ? "documents and their files" : "records"} are deleted in one go. This cannot be undone.</p>
      </ConfirmDialog>
    </div>
  );
}


/** Columns the user hid, per collection, kept in this browser (a preference, not a view to share). */
function useHiddenColumns(projectId: string, collectionId: string): [string[], (hidden: string[]) => void] {
  const key = `arca:hidden-columns:${projectId}/${collectionId}`;
  const [hidden, setHidden] = useState<string[]>([]);
  useEffect(() => {
    try {
      const stored: unknown = JSON.parse(localStorage.getItem(key) ?? "[]");
      setHidden(Array.isArray(stored) ? stored.filter((c): c is string => typeof c === "string") : []);
    } catch {
      setHidden([]);
    }
  }, [key]);
  return [
    hidden,
    (next) => {
      setHidden(next);
      localStorage.setItem(key, JSON.stringify(next));
    },
  ];
}

const MIN_WIDTH = 48;
/** px-3 on both sides of a cell. */
const CELL_PADDING = 24;
const MAX_WIDTH = 1200;
const clampWidth = (width: number) => Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, width)));

/**
 * Column widths the user dragged, per collection, kept in this browser like hidden columns. A
 * column without one sizes itself (at most 16rem); a width is remembered only once set.
 */
function useColumnWidths(projectId: string, collectionId: string): [Record<string, number>, (column: string, width: number | undefined) => void] {
  const key = `arca:column-widths:${projectId}/${collectionId}`;
  const [widths, setWidths] = useState<Record<string, number>>({});
  useEffect(() => {
    try {
      const stored: unknown = JSON.parse(localStorage.getItem(key) ?? "{}");
      const valid = stored && typeof stored === "object" && !Array.isArray(stored) ? Object.entries(stored).filter(([, w]) => typeof w === "number" && Number.isFinite(w)) : [];
      setWidths(Object.fromEntries(valid.map(([column, w]) => [column, clampWidth(w as number)])));
    } catch {
      setWidths({});
    }
  }, [key]);
  return [
    widths,
    (column, width) =>
      setWidths((current) => {
        const next = { ...current };
        if (width === undefined) delete next[column];
        else next[column] = clampWidth(width);
        localStorage.setItem(key, JSON.stringify(next));
        return next;
      }),
  ];
}

/**
 * The handle on a header's right edge: drag it (pointer), or focus it and use the arrow keys
 * (16 px a press, Shift for 64), Home (narrowest) and End (widest); a double click or Delete
 * goes back to the automatic width. A `separator` with a value, as WAI-ARIA's window splitter.
 */
function ColumnResizer({ column, width, onResize }: { column: string; width?: number; onResize: (width: number | undefined) => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const current = () => width ?? ref.current?.parentElement?.getBoundingClientRect().width ?? 160;
  return (
    <div
      ref={ref}
      role="separator"
      aria-orientation="vertical"
      aria-label={`Resize column ${column}`}
      aria-valuenow={Math.round(current())}
      aria-valuemin={MIN_WIDTH}
      aria-valuemax={MAX_WIDTH}
      tabIndex={0}
      onClick={(e) => e.stopPropagation()}
      onDoubleClick={() => onResize(undefined)}
      onPointerDown={(e) => {
        e.preventDefault();
        const startX = e.clientX;
        const startWidth = current();
        const target = e.currentTarget;
        target.setPointerCapture(e.pointerId);
        const move = (event: PointerEvent) => onResize(startWidth + event.clientX - startX);
        const up = () => {
          target.removeEventListener("pointermove", move);
          target.removeEventListener("pointerup", up);
          target.removeEventListener("pointercancel", up);
        };
        target.addEventListener("pointermove", move);
        target.addEventListener("pointerup", up);
        target.addEventListener("pointercancel", up);
      }}
      onKeyDown={(e) => {
        const step = e.shiftKey ? 64 : 16;
        const change: Record<string, (w: number) => number | undefined> = {
          ArrowLeft: (w) => w - step,
          ArrowRight: (w) => w + step,
          Home: () => MIN_WIDTH,
          End: () => MAX_WIDTH,
          Delete: () => undefined,
        };
        if (!(e.key in change)) return;
        e.preventDefault();
        onResize(change[e.key](current()));
      }}
      className="absolute inset-y-0 right-0 w-2 cursor-col-resize touch-none select-none border-r-2 border-transparent hover:border-indigo-400 focus-visible:border-indigo-600 focus-visible:outline-none"
    />
  );
}

function ColumnPicker({ columns, hidden, onChange }: { columns: string[]; hidden: string[]; onChange: (hidden: string[]) => void }) {
  return (
    <details className="mb-3 text-sm">
      <summary className="cursor-pointer text-slate-600 hover:text-slate-900">
        Columns{hidden.length ? ` (${hidden.length} hidden)` : ""}
      </summary>
      <fieldset className="mt-2 flex flex-wrap gap-x-4 gap-y-1">
        <legend className="sr-only">Shown columns</legend>
        {columns.map((column) => (
          <label key={column} className="flex items-center gap-1.5 font-mono text-xs">
            <input
              type="checkbox"
              checked={!hidden.includes(column)}
              onChange={(e) => onChange(e.target.checked ? hidden.filter((c) => c !== column) : [...hidden, column])}
              className="h-4 w-4 accent-indigo-600"
            />
            {column}
          </label>
        ))}
      </fieldset>
    </details>
  );
}

/** A panel over the right side of the page (full width on a phone); Escape or Close shuts it. */
function SidePanel({ label, onClose, children }: { label: string; onClose: () => void; children: React.ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    ref.current?.focus();
    return () => opener?.focus?.();
  }, []);
  return (
    <div
      ref={ref}
      role="dialog"
      aria-label={label}
      tabIndex={-1}
      onKeyDown={(e) => {
        // Escape inside an editor belongs to the editor; elsewhere it closes the panel.
        if (e.key === "Escape" && !(e.target as HTMLElement).closest(".cm-editor")) onClose();
      }}
      className="fixed inset-y-0 right-0 z-40 w-full max-w-2xl overflow-y-auto border-l border-slate-200 bg-slate-50 p-4 shadow-2xl outline-none dark:border-slate-700 dark:bg-slate-950"
    >
      <div className="mb-2 flex justify-end">
        <Button variant="ghost" className="px-2 py-1 text-xs" onClick={onClose}>
          Close
        </Button>
      </div>
      {children}
    </div>
  );
}

/** Jump straight to a page number (Enter applies). */
function JumpToPage({ page, pages, onJump }: { page: number; pages: number; onJump: (page: number) => void }) {
  const [value, setValue] = useState(String(page));
  useEffect(() => setValue(String(page)), [page]);
  return (
    <form
      className="flex items-center gap-1.5"
      aria-label="Jump to page"
      onSubmit={(e) => {
        e.preventDefault();
        const target = Math.trunc(Number(value));
        if (Number.isFinite(target)) onJump(Math.min(Math.max(1, target), Math.max(1, pages)));
      }}
    >
      <label htmlFor="jump-to-page">Page</label>
      <input
        id="jump-to-page"
        type="number"
        min={1}
        max={Math.max(1, pages)}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        className="w-20 rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-600 dark:bg-slate-900"
      />
      <Button type="submit" variant="secondary" className="px-2.5 py-1.5">
        Go
      </Button>
    </form>
  );
}

/**
 * Create or edit one document, as a form built from the schema or as JSON (one toggle apart, the
 * same text underneath); edits are sent as a merge patch of what changed.
 */
function DocumentEditor({
  projectId,
  collection,
  editing,
  onDone,
  onCreated,
}: {
  projectId: string;
  collection: CollectionDefinition;
  editing: Editing;
  onDone: () => void;
  /** After "Create, then upload files": go on editing the new document, to upload its files. */
  onCreated: (document: ArcaDocument) => void;
}) {
  const create = useCreateDocument(projectId, collection._id);
  const patch = usePatchDocument(projectId, collection._id);
  const replace = useReplaceDocument(projectId, collection._id);
  const queryClient = useQueryClient();
  // What the server holds: the document opened, plus files uploaded from the form since.
  const [original, setOriginal] = useState<ArcaDocument | undefined>(editing.mode === "edit" ? editing.document : undefined);
  const hasFiles = orderedProperties(collection.schema).some(([, p]) => p.type === "file");
  // "Create, then upload files" keeps the panel open on the new document; Create closes it as ever.
  const stayOpen = useRef(false);
  const [text, setText] = useState(() => (original ? JSON.stringify(original, null, 2) : template(collection)));
  const [notice, setNotice] = useState<string | undefined>();
  const hasForm = orderedProperties(collection.schema).length > 0;
  const [mode, setMode] = useState<"form" | "json">(hasForm ? "form" : "json");
  const ref = useRef<HTMLDivElement>(null);
  // A block body: newer browsers' scrollIntoView returns a promise, which is not a cleanup.
  useEffect(() => {
    ref.current?.scrollIntoView({ block: "nearest" });
  }, []);
  const mutation = original ? (replace.isIdle ? patch : replace) : create;
  const parsed = parseJsonObject(text, "A document");
  const localErrors = parsed.ok
    ? original && parsed.value._id !== original._id
      ? ["The _id cannot change: create a new document instead."]
      : []
    : [parsed.error];
  const apiError = mutation.error instanceof ApiError ? mutation.error : undefined;
  const serverErrors = apiError?.errors.map((e) => (e.property ? `${e.property}: ${e.message}` : e.message)) ?? [];

  function submit(event: React.FormEvent) {
    event.preventDefault();
    if (!parsed.ok || localErrors.length) return;
    setNotice(undefined);
    if (original) {
      const edit = documentEdit(original, parsed.value);
      if (!edit) return setNotice("Nothing changed.");
      if (edit.kind === "whole") {
        patch.reset();
        replace.mutate(edit.document as ArcaDocument, { onSuccess: onDone });
      } else {
        replace.reset();
        patch.mutate({ id: original._id, patch: edit.patch, topLevel: edit.kind === "top-level" }, { onSuccess: onDone });
      }
    } else {
      const document = { ...parsed.value };
      if (document._id === "" || document._id === null) delete document._id;
      create.mutate(document, { onSuccess: (created) => (stayOpen.current ? onCreated(created) : onDone()) });
    }
  }

  return (
    <div ref={ref}>
      <Card title={original ? `Edit ${original._id}` : "New document"} description={original ? "Only what you change is sent: a JSON merge patch, or the changed keys whole when they hold a null." : "Leave out _id to have one generated."}>
        <form onSubmit={submit} className="space-y-4" noValidate aria-label={original ? "Edit document" : "New document"}>
          {mutation.error && <Alert>{apiError?.errors.length ? `${apiError.message}: the server refused the document.` : describeError(mutation.error)}</Alert>}
          {notice && <Alert tone="info">{notice}</Alert>}
          {hasForm && (
            <div role="group" aria-label="Editor" className="inline-flex rounded-md border border-slate-300 p-0.5 text-xs dark:border-slate-600">
              {(["form", "json"] as const).map((m) => (
                <button
                  key={m}
                  type="button"
                  aria-pressed={mode === m}
                  // The form needs an object: from broken JSON, fix the JSON first.
                  disabled={m === "form" && !parsed.ok}
                  onClick={() => setMode(m)}
                  className={`rounded px-2.5 py-1 font-medium ${mode === m ? "bg-indigo-600 text-white" : "text-slate-700 hover:bg-slate-100 disabled:text-slate-400 dark:text-slate-200"}`}
                >
                  {m === "form" ? "Form" : "JSON"}
                </button>
              ))}
            </div>
          )}
          {mode === "form" && parsed.ok ? (
            <>
              <SchemaForm
                projectId={projectId}
                collectionId={collection._id}
                documentId={original?._id}
                schema={collection.schema}
                value={parsed.value}
                onChange={(next) => setText(JSON.stringify(next, null, 2))}
                onFileUploaded={(property, record) => {
                  // Stored already: the baseline takes it too, so Save does not send it back.
                  setOriginal((before) => (before ? { ...before, [property]: record } : before));
                  // From the text as it is now: the form may have changed while the upload ran.
                  setText((text) => {
                    const now = parseJsonObject(text, "A document");
                    return now.ok ? JSON.stringify({ ...now.value, [property]: record }, null, 2) : text;
                  });
                  void queryClient.invalidateQueries({ queryKey: queryKeys.documents(projectId, collection._id) });
                }}
                errors={apiError?.errors ?? []}
                creating={!original}
              />
              {localErrors.length > 0 && <Alert>{localErrors.join(" ")}</Alert>}
            </>
          ) : (
            <JsonField label="Document (JSON)" name="document" rows={14} value={text} onChange={setText} errors={[...localErrors, ...serverErrors]} />
          )}
          <div className="flex flex-wrap justify-end gap-2">
            <Button variant="secondary" onClick={onDone}>
              Cancel
            </Button>
            {/* First in order: the default button, which Enter in a field clicks. */}
            <Button type="submit" disabled={!!localErrors.length || mutation.isPending} onClick={() => (stayOpen.current = false)}>
              {mutation.isPending ? "Saving..." : original ? "Save document" : "Create document"}
            </Button>
            {!original && hasFiles && (
              <Button type="submit" variant="secondary" disabled={!!localErrors.length || mutation.isPending} onClick={() => (stayOpen.current = true)}>
                Create, then upload files
              </Button>
            )}
          </div>
        </form>
      </Card>
    </div>
  );
}
