import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "./api";
import type { Page } from "./types";

/**
 * The dashboard's client for hooks (`_hooks`) and their deliveries (`_hooks_history`), CONTRACT §8:
 * shapes, typed fetch helpers and TanStack Query hooks. (Named "webhooks" so it does not collide
 * with `hooks.ts`, the React hooks of the other resources.) Browser-only.
 */
export type HookTrigger = "created" | "updated" | "deleted";
export const HOOK_TRIGGERS: readonly HookTrigger[] = ["created", "updated", "deleted"];
export const HOOK_METHODS = ["POST", "PUT", "PATCH", "GET", "DELETE"] as const;
export type HookMethod = (typeof HOOK_METHODS)[number];
export type RetryStrategy = "exponential" | "constant";

export interface Hook {
  _id: string;
  name: string;
  collection: string;
  conditions: Record<string, unknown> | null;
  method: HookMethod;
  url: string;
  headers: Record<string, string>;
  triggers: HookTrigger[];
  request_payload_wrapper: string;
  timeout: { read: number; connect: number };
  retry: { strategy: RetryStrategy };
  /** `"********"` for readers who may not manage hooks. */
  secret: string;
  is_active: boolean;
}

export type HookInput = Omit<Hook, "_id">;

export type DeliveryStatus = "success" | "error" | "retrying";
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ["success", "error", "retrying"];

/** A `_hooks_history` record: one delivery, updated per attempt. */
export interface HookDelivery {
  id: string;
  hook_id: string;
  trigger: HookTrigger | "test";
  collection: string;
  document_id: string;
  attempt: number;
  status: DeliveryStatus;
  request: { method: string; url: string; headers: Record<string, string>; body: string } | null;
  response: { status_code: number; time_took: number; headers: Record<string, string>; body: string } | null;
  error: string | null;
  date_created: string;
}

const HOOKS = "/api/collections/_hooks/documents/";
const HISTORY = "/api/collections/_hooks_history/documents/";
const enc = encodeURIComponent;

export const hookKeys = {
  hooks: (project: string) => ["projects", project, "hooks"] as const,
  hook: (project: string, id: string) => ["projects", project, "hooks", "one", id] as const,
  history: (project: string) => ["projects", project, "hooks-history"] as const,
  lastDelivery: (project: string, hookId: string) => ["projects", project, "hooks-history", "last", hookId] as const,
};

export function useHookList(project: string) {
  return useQuery({
    queryKey: hookKeys.hooks(project),
    queryFn: ({ signal }) => apiFetch<Page<Hook>>(`${HOOKS}?per_page=1000&sort=name`, { project, signal }),
  });
}

export function useHook(project: string, id: string) {
  return useQuery({
    queryKey: hookKeys.hook(project, id),
    queryFn: ({ signal }) => apiFetch<Hook>(`${HOOKS}${enc(id)}/`, { project, signal }),
  });
}

/** How often the delivery views look again: deliveries happen in the background, not on a click. */
export const HISTORY_REFRESH_MS = 2_000;

/** The hook's newest delivery (`filter` by hook, `sort=-id`, one per page), or null. */
export function useLastDelivery(project: string, hookId: string) {
  return useQuery({
    queryKey: hookKeys.lastDelivery(project, hookId),
    queryFn: async ({ signal }) => {
      const params = new URLSearchParams({ filter: JSON.stringify({ hook_id: hookId }), sort: "-id", per_page: "1" });
      const page = await apiFetch<Page<HookDelivery>>(`${HISTORY}?${params}`, { project, signal });
      return page.items[0] ?? null;
    },
    refetchInterval: HISTORY_REFRESH_MS * 3,
  });
}

export interface DeliveryQuery {
  page: number;
  perPage: number;
  status?: DeliveryStatus;
}

/** One hook's deliveries, newest first, optionally of one status. */
export function useHookDeliveries(project: string, hookId: string, query: DeliveryQuery) {
  return useQuery({
    queryKey: [...hookKeys.history(project), hookId, query],
    queryFn: ({ signal }) => {
      const filter: Record<string, unknown> = { hook_id: hookId };
      if (query.status) filter.status = query.status;
      const params = new URLSearchParams({ filter: JSON.stringify(filter), sort: "-id", page: String(query.page), per_page: String(query.perPage) });
      return apiFetch<Page<HookDelivery>>(`${HISTORY}?${params}`, { project, signal });
    },
    placeholderData: keepPreviousData,
    refetchInterval: HISTORY_REFRESH_MS,
  });
}

function invalidateHooks(client: ReturnType<typeof useQueryClient>, project: string) {
  void client.invalidateQueries({ queryKey: hookKeys.hooks(project) });
}

export function useCreateHook(project: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: HookInput) => apiFetch<Hook>(HOOKS, { method: "POST", project, json: input }),
    onSuccess: (hook) => {
      client.setQueryData(hookKeys.hook(project, hook._id), hook);
      invalidateHooks(client, project);
    },
  });
}

/** Changes the given top-level properties (PATCH); the answer is the whole hook. */
export function useUpdateHook(project: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: Partial<HookInput> }) => apiFetch<Hook>(`${HOOKS}${enc(id)}/`, { method: "PATCH", project, json: patch }),
    onSuccess: (hook) => {
      client.setQueryData(hookKeys.hook(project, hook._id), hook);
      invalidateHooks(client, project);
    },
  });
}

export function useDeleteHook(project: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiFetch<void>(`${HOOKS}${enc(id)}/`, { method: "DELETE", project }),
    onSuccess: (_answer, id) => {
      client.removeQueries({ queryKey: hookKeys.hook(project, id) });
      invalidateHooks(client, project);
    },
  });
}

/** `X-Action: test`: one delivery of a sample document now; the answer is its history record. */
export function useSendTestDelivery(project: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (hookId: string) => apiFetch<HookDelivery>(`${HOOKS}${enc(hookId)}/`, { method: "POST", project, action: "test" }),
    onSettled: () => client.invalidateQueries({ queryKey: hookKeys.history(project) }),
  });
}

/** `X-Action: retry` on a history record: that event delivered again now. */
/** Deletes a delivery record; a queued one (`retrying`) is cancelled with it. */
export function useDeleteDelivery(project: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) => apiFetch<void>(`${HISTORY}${enc(deliveryId)}/`, { method: "DELETE", project }),
    onSettled: () => client.invalidateQueries({ queryKey: hookKeys.history(project) }),
  });
}

export function useRedeliver(project: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) => apiFetch<HookDelivery>(`${HISTORY}${enc(deliveryId)}/`, { method: "POST", project, action: "retry" }),
    onSettled: () => client.invalidateQueries({ queryKey: hookKeys.history(project) }),
  });
}
