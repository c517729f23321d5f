import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, apiFetch } from "./api";
import { FILES_PATH } from "./files";
import type {
  ArcaDocument,
  Collection,
  CollectionDefinition,
  CollectionInput,
  CreatedToken,
  FileRecord,
  Member,
  MemberRole,
  Page,
  Project,
  ProjectPatch,
  Token,
  TokenAllow,
} from "./types";

/** TanStack Query hooks over the typed fetch helpers: one key per resource, invalidated on writes. */
export const queryKeys = {
  projects: ["projects"] as const,
  project: (id: string) => ["projects", id] as const,
  tokens: (project: string) => ["projects", project, "tokens"] as const,
  collections: (project: string) => ["projects", project, "collections"] as const,
  collectionList: (project: string) => ["projects", project, "collection-list"] as const,
  collection: (project: string, id: string) => ["projects", project, "collection", id] as const,
  documents: (project: string, collection: string) => ["projects", project, "documents", collection] as const,
  files: (project: string) => ["projects", project, "files"] as const,
  members: (project: string) => ["projects", project, "members"] as const,
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

/** Deletes a project with its data and files (owner only, CONTRACT §2). */
export function useDeleteProject(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => apiFetch<void>(`/api/user/projects/${enc(id)}/`, { method: "DELETE" }),
    onSuccess: () => {
      client.removeQueries({ queryKey: queryKeys.project(id) });
      void client.invalidateQueries({ queryKey: queryKeys.projects, exact: true });
    },
  });
}

/** Transfers the project to a member (`PATCH {owner: <email>}`, owner only; see docs/api.md). */
export function useTransferProject(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (email: string) => apiFetch<Project>(`/api/user/projects/${enc(id)}/`, { method: "PATCH", json: { owner: email } }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.members(id) });
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

// Collection definitions.

export function useCollections(project: string) {
  return useQuery({
    queryKey: queryKeys.collectionList(project),
    queryFn: ({ signal }) =>
      apiFetch<Page<CollectionDefinition>>("/api/collections/?per_page=1000&fields=_id,name,description,documents_count,is_system,indexes", {
        project,
        signal,
      }),
  });
}

export function useCollection(project: string, id: string) {
  return useQuery({
    queryKey: queryKeys.collection(project, id),
    queryFn: ({ signal }) => apiFetch<CollectionDefinition>(`/api/collections/${enc(id)}/`, { project, signal }),
  });
}

/** Every cached view of a project's collections: the list, the names, one definition. */
function invalidateCollections(client: ReturnType<typeof useQueryClient>, project: string, id?: string) {
  void client.invalidateQueries({ queryKey: queryKeys.collectionList(project) });
  void client.invalidateQueries({ queryKey: queryKeys.collections(project) });
  if (id) void client.invalidateQueries({ queryKey: queryKeys.collection(project, id) });
}

export function useCreateCollection(project: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CollectionInput & { _id: string }) => apiFetch<CollectionDefinition>("/api/collections/", { method: "POST", project, json: input }),
    onSuccess: (collection) => invalidateCollections(client, project, collection._id),
  });
}

/** Saves a whole definition (`PUT`): a schema edit replaces the schema, it is not merged into it. */
export function useSaveCollection(project: string, id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CollectionInput) => apiFetch<CollectionDefinition>(`/api/collections/${enc(id)}/`, { method: "PUT", project, json: input }),
    onSuccess: (collection) => {
      client.setQueryData(queryKeys.collection(project, id), collection);
      invalidateCollections(client, project, id);
      void client.invalidateQueries({ queryKey: queryKeys.documents(project, id) });
    },
  });
}

export function useDeleteCollection(project: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiFetch<void>(`/api/collections/${enc(id)}/`, { method: "DELETE", project }),
    onSuccess: (_answer, id) => {
      client.removeQueries({ queryKey: queryKeys.collection(project, id) });
      client.removeQueries({ queryKey: queryKeys.documents(project, id) });
      invalidateCollections(client, project);
      void client.invalidateQueries({ queryKey: queryKeys.files(project) });
    },
  });
}

// Documents.

export interface DocumentQuery {
  page: number;
  perPage: number;
  /** `field` or `-field`. */
  sort?: string;
  filter?: Record<string, unknown>;
  text?: string;
}

export function documentsPath(collection: string) {
  return `/api/collections/${enc(collection)}/documents/`;
}

export function useDocuments(project: string, collection: string, query: DocumentQuery, options: { enabled?: boolean } = {}) {
  return useQuery({
    enabled: options.enabled ?? true,
    queryKey: [...queryKeys.documents(project, collection), query],
    queryFn: ({ signal }) => {
      const params = new URLSearchParams({ page: String(query.page), per_page: String(query.perPage) });
      if (query.sort) params.set("sort", query.sort);
      if (query.filter) params.set("filter", JSON.stringify(query.filter));
      if (query.text?.trim()) params.set("text", query.text.trim());
      return apiFetch<Page<ArcaDocument>>(`${documentsPath(collection)}?${params}`, { project, signal });
    },
    placeholderData: keepPreviousData,
  });
}

function invalidateDocuments(client: ReturnType<typeof useQueryClient>, project: string, collection: string) {
  void client.invalidateQueries({ queryKey: queryKeys.documents(project, collection) });
  // documents_count moved.
  void client.invalidateQueries({ queryKey: queryKeys.collectionList(project) });
  void client.invalidateQueries({ queryKey: queryKeys.collection(project, collection) });
}

export function useCreateDocument(project: string, collection: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (document: Record<string, unknown>) => apiFetch<ArcaDocument>(documentsPath(collection), { method: "POST", project, json: document }),
    onSuccess: () => invalidateDocuments(client, project, collection),
  });
}

/**
 * Changes a document with a JSON merge patch (only what the user changed is sent, nested). The
 * media type says so: a plain `application/json` PATCH replaces whole top-level keys (CONTRACT §5).
 */
export function usePatchDocument(project: string, collection: string) {
  const client = useQueryClient();
  return useMutation({
    // `topLevel`: a plain JSON PATCH, which replaces the top-level keys it names (nulls kept).
    mutationFn: ({ id, patch, topLevel = false }: { id: string; patch: Record<string, unknown>; topLevel?: boolean }) =>
      apiFetch<ArcaDocument>(`${documentsPath(collection)}${enc(id)}/`, { method: "PATCH", project, json: patch, contentType: topLevel ? undefined : "application/merge-patch+json" }),
    onSuccess: () => invalidateDocuments(client, project, collection),
  });
}

/** Saves a whole document (PUT): for the edit no patch carries (a top-level key removed and a null kept). */
export function useReplaceDocument(project: string, collection: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (document: ArcaDocument) => apiFetch<ArcaDocument>(`${documentsPath(collection)}${enc(document._id)}/`, { method: "PUT", project, json: document }),
    onSuccess: () => invalidateDocuments(client, project, collection),
  });
}

export function useDeleteDocument(project: string, collection: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiFetch<void>(`${documentsPath(collection)}${enc(id)}/`, { method: "DELETE", project }),
    onSuccess: () => {
      invalidateDocuments(client, project, collection);
      void client.invalidateQueries({ queryKey: queryKeys.files(project) });
    },
  });
}

/** Deletes several documents in one request: `X-Action: Delete` with an `_id` `$in` filter. */
export function useDeleteDocuments(project: string, collection: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (ids: string[]) =>
      apiFetch<{ deleted: number }>(documentsPath(collection), {
        method: "POST",
        project,
        action: "Delete",
        json: { payload: { filter: { _id: { $in: ids } } } },
      }),
    onSuccess: () => {
      invalidateDocuments(client, project, collection);
      void client.invalidateQueries({ queryKey: queryKeys.files(project) });
    },
  });
}

// Files (`_files`).

/** `filter` narrows the list server-side (name search, type), like any list (CONTRACT §3). */
export function useFiles(project: string, page: number, perPage = 50, filter?: Record<string, unknown>) {
  return useQuery({
    queryKey: [...queryKeys.files(project), page, perPage, filter ?? null],
    queryFn: ({ signal }) =>
      apiFetch<Page<FileRecord>>(
        `${FILES_PATH}?page=${page}&per_page=${perPage}&sort=-date_created${filter && Object.keys(filter).length ? `&filter=${encodeURIComponent(JSON.stringify(filter))}` : ""}`,
        { project, signal },
      ),
    placeholderData: keepPreviousData,
  });
}

export function useFileUploaded(project: string) {
  const client = useQueryClient();
  return (record: FileRecord) => {
    void client.invalidateQueries({ queryKey: queryKeys.files(project) });
    void client.invalidateQueries({ queryKey: queryKeys.project(project), exact: true });
    if (record.collection_id !== "_files") void client.invalidateQueries({ queryKey: queryKeys.documents(project, record.collection_id) });
  };
}

export function useDeleteFile(project: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (file: FileRecord) => apiFetch<void>(`${FILES_PATH}${enc(file._id)}/`, { method: "DELETE", project }),
    onSuccess: (_answer, file) => {
      void client.invalidateQueries({ queryKey: queryKeys.files(project) });
      void client.invalidateQueries({ queryKey: queryKeys.project(project), exact: true });
      if (file.collection_id !== "_files") void client.invalidateQueries({ queryKey: queryKeys.documents(project, file.collection_id) });
    },
  });
}

// Members (`_users`).

const USERS = "/api/collections/_users/documents/";

export function useMembers(project: string) {
  return useQuery({
    queryKey: queryKeys.members(project),
    queryFn: ({ signal }) => apiFetch<Page<Member>>(`${USERS}?per_page=1000`, { project, signal }),
  });
}

/** Invites an address; inviting a pending address again mails a new link (docs/members.md). */
export function useInviteMember(project: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { _id: string; role: Exclude<MemberRole, "owner"> }) => apiFetch<Member>(USERS, { method: "POST", project, json: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.members(project) }),
  });
}

export function useUpdateMember(project: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: Partial<Pick<Member, "role" | "is_active">> }) =>
      apiFetch<Member>(`${USERS}${enc(id)}/`, { method: "PATCH", project, json: patch }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.members(project) }),
  });
}

export function useRemoveMember(project: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiFetch<void>(`${USERS}${enc(id)}/`, { method: "DELETE", project }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.members(project) }),
  });
}
