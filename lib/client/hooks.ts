import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, apiFetch } from "./api";
import type { Collection, CreatedToken, Page, Project, ProjectPatch, Token, TokenAllow } from "./types";

/** TanStack Query hooks over the typed fetch helpers: one key per resource, invalidated on writes. */
export const queryKeys = {
  projects: ["projects"] as const,
  project: (id: string) => ["projects", id] as const,
  tokens: (project: string) => ["projects", project, "tokens"] as const,
  collections: (project: string) => ["projects", project, "collections"] as const,
};

const enc = encodeURIComponent;

// Projects (bare host).

export function useProjects() {
  return useQuery({
    queryKey: queryKeys.projects,
    queryFn: ({ signal }) => apiFetch<Page<Project>>("/api/user/projects/?per_page=1000", { signal }),
  });
}

export function useProject(id: string) {
  return useQuery({
    queryKey: queryKeys.project(id),
    queryFn: ({ signal }) => apiFetch<Project>(`/api/user/projects/${enc(id)}/`, { signal }),
  });
}

export function useCreateProject() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { _id: string; name: string }) =>
      apiFetch<Project>("/api/user/projects/", { method: "POST", json: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.projects }),
  });
}

export function useUpdateProject(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (patch: ProjectPatch) => apiFetch<Project>(`/api/user/projects/${enc(id)}/`, { method: "PATCH", json: patch }),
    onSuccess: (project) => {
      client.setQueryData(queryKeys.project(id), project);
      void client.invalidateQueries({ queryKey: queryKeys.projects, exact: true });
    },
  });
}

// Tokens (`_tokens` of a project).

const TOKENS = "/api/collections/_tokens/documents/";

export function useTokens(project: string) {
  return useQuery({
    queryKey: queryKeys.tokens(project),
    queryFn: ({ signal }) => apiFetch<Page<Token>>(`${TOKENS}?per_page=1000`, { project, signal }),
  });
}

export function useCreateToken(project: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { name: string; permission: { allow: TokenAllow } }) =>
      apiFetch<CreatedToken>(TOKENS, { method: "POST", project, json: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.tokens(project) }),
  });
}

export function useUpdateToken(project: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: Partial<Pick<Token, "name" | "is_active" | "permission">> }) =>
      apiFetch<Token>(`${TOKENS}${enc(id)}/`, { method: "PATCH", project, json: patch }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.tokens(project) }),
  });
}

export function useDeleteToken(project: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiFetch<void>(`${TOKENS}${enc(id)}/`, { method: "DELETE", project }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.tokens(project) }),
  });
}

// Collections: names for the token permission matrix.

export interface CollectionNames {
  names: string[];
  /** False when the collections API could not be read: the user types names instead. */
  available: boolean;
}

export function useCollectionNames(project: string) {
  return useQuery({
    queryKey: queryKeys.collections(project),
    queryFn: async ({ signal }): Promise<CollectionNames> => {
      try {
        const page = await apiFetch<Page<Collection>>("/api/collections/?per_page=1000&fields=_id", { project, signal });
        const names = Array.isArray(page?.items) ? page.items.map((c) => c._id).filter((id) => typeof id === "string") : [];
        return { names, available: true };
      } catch (error) {
        // Not there (older server) or not allowed: degrade to typed names rather than fail the page.
        if (error instanceof ApiError && error.status !== 0) return { names: [], available: false };
        throw error;
      }
    },
    retry: false,
  });
}
