"use client";

import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { readTokenDates } from "@/lib/auth/token-dates-action";
import { ApiError, describeError } from "@/lib/client/api";
import { queryKeys, useCollectionNames, useCreateToken, useDeleteToken, useTokens, useUpdateToken } from "@/lib/client/hooks";
import { TOKEN_ACTIONS, type CreatedToken, type PermissionEntry, type Token, type TokenAllow } from "@/lib/client/types";
import { Alert, Badge, Button, Card, ConfirmDialog, TextField } from "@/components/ui";
import { emptyRow, PermissionMatrix, type Matrix } from "./permission-matrix";
import { TokenSecret } from "./token-secret";
import { timeAgo } from "@/components/hooks/delivery-status";

/** A project's API tokens: the list with deactivate/delete, and the create form. */
export function TokensView({ projectId, canManage }: { projectId: string; canManage: boolean }) {
  const [created, setCreated] = useState<CreatedToken | undefined>();
  const [editing, setEditing] = useState<Token | undefined>();
  // Members may read tokens but not manage them (CONTRACT §10, lib/auth/can.ts): no button that only 403s.
  if (!canManage)
    return (
      <div className="space-y-4">
        <Alert tone="info">Only the project&apos;s owner or an admin can create, deactivate or delete tokens.</Alert>
        <TokenList projectId={projectId} canManage={false} />
      </div>
    );
  return (
    <div className="grid items-start gap-6 lg:grid-cols-[1fr_26rem] [&>*]:min-w-0">
      <TokenList projectId={projectId} canManage onEdit={(token) => (setCreated(undefined), setEditing(token))} />
      <div>
        {created ? (
          <TokenSecret name={created.name || created._id} secret={created.token} onDone={() => setCreated(undefined)} />
        ) : editing ? (
          <EditToken key={editing._id} projectId={projectId} token={editing} onDone={() => setEditing(undefined)} />
        ) : (
          <CreateToken projectId={projectId} onCreated={setCreated} />
        )}
      </div>
    </div>
  );
}

function TokenList({ projectId, canManage, onEdit }: { projectId: string; canManage: boolean; onEdit?: (token: Token) => void }) {
  const tokens = useTokens(projectId);
  // Not in the `_tokens` records (CONTRACT §9 fixes their shape): a dashboard-only server action,
  // under the tokens' query key so a create or delete refreshes it with the list.
  const dates = useQuery({ queryKey: [...queryKeys.tokens(projectId), "dates"], queryFn: () => readTokenDates(projectId) });
  const update = useUpdateToken(projectId);
  const remove = useDeleteToken(projectId);
  const [deleting, setDeleting] = useState<Token | undefined>();
  const [deactivating, setDeactivating] = useState<Token | undefined>();

  return (
    <Card title="Tokens" description="Tokens let programs use this project's API with the permissions you give them.">
      {tokens.isPending && <p className="text-sm text-slate-500">Loading tokens...</p>}
      {tokens.isError && <Alert>{describeError(tokens.error)}</Alert>}
      {update.isError && <Alert>{describeError(update.error)}</Alert>}
      {tokens.data && tokens.data.items.length === 0 && <p className="text-sm text-slate-500">No tokens yet.</p>}
      {tokens.data && tokens.data.items.length > 0 && (
        <ul className="divide-y divide-slate-100" aria-label="Tokens">
          {tokens.data.items.map((token) => (
            <li key={token._id} className="flex flex-wrap items-start justify-between gap-3 py-3" data-testid={`token-${token._id}`}>
              <div className="min-w-0 flex-1">
                <div className="flex flex-wrap items-center gap-2">
                  <span className="font-medium text-slate-900">{token.name || "Unnamed token"}</span>
                  {token.is_active ? <Badge tone="success">Active</Badge> : <Badge>Inactive</Badge>}
                </div>
                <p className="truncate font-mono text-xs text-slate-500">{token._id}</p>
                <p className="mt-1 text-xs text-slate-600">{describePermission(token.permission.allow)}</p>
                <TokenDatesLine dates={dates.data?.[token._id]} />
              </div>
              {canManage && (
                <div className="flex gap-2">
                  <Button variant="secondary" className="px-2.5 py-1.5 text-xs" onClick={() => onEdit?.(token)} aria-label={`Edit token ${token.name || token._id}`}>
                    Edit
                  </Button>
                  <Button
                    variant="secondary"
                    className="px-2.5 py-1.5 text-xs"
                    disabled={update.isPending}
                    // Deactivating cuts programs off at once: asked first. Activating is harmless.
                    onClick={() => (token.is_active ? setDeactivating(token) : update.mutate({ id: token._id, patch: { is_active: true } }))}
                    aria-label={`${token.is_active ? "Deactivate" : "Activate"} token ${token.name || token._id}`}
                  >
                    {token.is_active ? "Deactivate" : "Activate"}
                  </Button>
                  <Button
                    variant="ghost"
                    className="px-2.5 py-1.5 text-xs text-red-700 hover:bg-red-50"
                    onClick={() => setDeleting(token)}
                    aria-label={`Delete token ${token.name || token._id}`}
                  >
                    Delete
                  </Button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={!!deactivating}
        title="Deactivate this token?"
        confirmLabel="Deactivate token"
        busy={update.isPending}
        error={update.error}
        onCancel={() => {
          update.reset();
          setDeactivating(undefined);
        }}
        onConfirm={() =>
          deactivating &&
          update.mutate({ id: deactivating._id, patch: { is_active: false } }, { onSuccess: () => setDeactivating(undefined) })
        }
      >
        <p>
          Programs using <span className="font-medium">{deactivating?.name || deactivating?._id}</span> are refused until you activate it again.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={!!deleting}
        title="Delete this token?"
        confirmLabel="Delete token"
        busy={remove.isPending}
        error={remove.error}
        onCancel={() => {
          remove.reset();
          setDeleting(undefined);
        }}
        onConfirm={() =>
          deleting &&
          remove.mutate(deleting._id, {
            onSuccess: () => setDeleting(undefined),
          })
        }
      >
        <p>
          Programs using <span className="font-medium">{deleting?.name || deleting?._id}</span> lose access at once. This cannot be undone;
          deactivate it instead to keep it for later.
        </p>
      </ConfirmDialog>
    </Card>
  );
}

function CreateToken({ projectId, onCreated }: { projectId: string; onCreated: (token: CreatedToken) => void }) {
  const collections = useCollectionNames(projectId);
  const create = useCreateToken(projectId);
  const [name, setName] = useState("");
  const [all, setAll] = useState(false);
  const [matrix, setMatrix] = useState<Matrix>({});
  const allow = toAllow(all, matrix);
  const empty = !all && TOKEN_ACTIONS.every((action) => allow[action].length === 0);
  const apiError = create.error instanceof ApiError ? create.error : undefined;

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    try {
      const token = await create.mutateAsync({ name: name.trim(), permission: { allow } });
      onCreated(token);
    } catch {
      // Shown from create.error.
    }
  }

  return (
    <Card title="New token">
      <form onSubmit={submit} className="space-y-4">
        {create.error && <Alert>{describeError(create.error)}</Alert>}
        <TextField label="Name" name="token-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} error={apiError?.errorFor("name")} hint="What uses it, e.g. “website” or “import job”." />
        {collections.data && !collections.data.available && (
          <Alert tone="info">The collection list is not available: type the collection names this token may use.</Alert>
        )}
        <PermissionMatrix collections={collections.data?.names ?? []} all={all} onAllChange={setAll} matrix={matrix} onMatrixChange={setMatrix} />
        {empty && <p className="text-xs text-slate-500">Without any permission the token reads and writes nothing: the collection list shows it none, everything else is refused (403).</p>}
        <Button type="submit" className="w-full" disabled={create.isPending || !name.trim()}>
          {create.isPending ? "Creating..." : "Create token"}
        </Button>
      </form>
    </Card>
  );
}

/**
 * Renames a token or changes its permissions (a PATCH of `_tokens`; its secret stays). Entries
 * the matrix cannot show (a document's id, a `where`) are kept as they are and listed.
 */
function EditToken({ projectId, token, onDone }: { projectId: string; token: Token; onDone: () => void }) {
  const collections = useCollectionNames(projectId);
  const update = useUpdateToken(projectId);
  const allowed = token.permission.allow;
  const [name, setName] = useState(token.name);
  const [all, setAll] = useState(allowed.all === true);
  const [matrix, setMatrix] = useState<Matrix>(() => toMatrix(allowed));
  const kept = TOKEN_ACTIONS.flatMap((action) => allowed[action].filter((entry) => typeof entry !== "string").map((entry) => ({ action, entry })));
  const named = TOKEN_ACTIONS.flatMap((action) => allowed[action].filter((entry): entry is string => typeof entry === "string"));
  const allow = toAllow(all, matrix);
  if (!all) for (const { action, entry } of kept) allow[action].push(entry);
  const apiError = update.error instanceof ApiError ? update.error : undefined;

  function submit(event: React.FormEvent) {
    event.preventDefault();
    update.mutate({ id: token._id, patch: { name: name.trim(), permission: { allow } } }, { onSuccess: onDone });
  }

  return (
    <Card title={`Edit ${token.name || token._id}`} description="Programs keep the same secret; the new permissions apply to their next request.">
      <form onSubmit={submit} className="space-y-4" aria-label="Edit token">
        {update.error && <Alert>{describeError(update.error)}</Alert>}
        <TextField label="Name" name="token-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} error={apiError?.errorFor("name")} />
        <PermissionMatrix collections={[...new Set([...(collections.data?.names ?? []), ...named])]} all={all} onAllChange={setAll} matrix={matrix} onMatrixChange={setMatrix} />
        {kept.length > 0 && (
          <p className="text-xs text-slate-500">
            {all ? "Full access replaces these entries set through the API: " : "Also kept as set through the API: "}
            {kept.map(({ action, entry }) => `${action} ${entryLabel(entry)}`).join(" · ")}
          </p>
        )}
        <div className="flex gap-2">
          <Button type="submit" className="flex-1" disabled={update.isPending || !name.trim()}>
            {update.isPending ? "Saving..." : "Save token"}
          </Button>
          <Button type="button" variant="secondary" onClick={onDone}>
            Cancel
          </Button>
        </div>
      </form>
    </Card>
  );
}

/** The matrix of a token's collection entries (by name); the others are kept aside. */
function toMatrix(allow: TokenAllow): Matrix {
  const matrix: Matrix = {};
  for (const action of TOKEN_ACTIONS)
    for (const entry of allow[action]) if (typeof entry === "string") matrix[entry] = { ...emptyRow(), ...matrix[entry], [action]: true };
  return matrix;
}

function toAllow(all: boolean, matrix: Matrix): TokenAllow {
  const allow: TokenAllow = { all, read: [], write: [], update: [], delete: [] };
  if (all) return allow;
  for (const [collection, actions] of Object.entries(matrix))
    for (const action of TOKEN_ACTIONS) if (actions[action]) allow[action].push(collection);
  return allow;
}

function describePermission(allow: TokenAllow): string {
  if (allow.all) return "Full access";
  const parts = TOKEN_ACTIONS.filter((action) => allow[action].length).map((action) => `${action}: ${allow[action].map(entryLabel).join(", ")}`);
  return parts.length ? parts.join(" · ") : "No permissions";
}

function entryLabel(entry: PermissionEntry): string {
  if (typeof entry === "string") return entry;
  // As lib/auth/permission.ts reads it: without `where`, a collection's id or every collection.
  if (entry.where === undefined) return entry.what_id ?? `every collection (${entry.what}s)`;
  return entry.what_id !== undefined ? `${entry.where}/${entry.what_id}` : entry.where;
}

/** "Created 3 Nov 2026 · Last used 2 hours ago" (exact times on hover); last use to the minute. */
function TokenDatesLine({ dates }: { dates?: { created_at: string; last_used_at: string | null } }) {
  if (!dates) return null;
  const exact = (iso: string) => new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });
  return (
    <p className="mt-1 text-xs text-slate-500" data-testid="token-dates">
      Created <time dateTime={dates.created_at} title={exact(dates.created_at)}>{new Date(dates.created_at).toLocaleDateString("en-GB", { dateStyle: "medium" })}</time>
      {" · "}
      {dates.last_used_at ? (
        <>
          Last used{" "}
          <time dateTime={dates.last_used_at} title={exact(dates.last_used_at)}>
            {timeAgo(dates.last_used_at)}
          </time>
        </>
      ) : (
        "Never used"
      )}
    </p>
  );
}
