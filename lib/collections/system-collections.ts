import type { CollectionView } from "./collection";

/**
 * The system collections every project has (CONTRACT §4, §10). Their routes live with their
 * owners (`_tokens` in lib/api/tokens.ts, `_users`/`_notification` with members, `_files` with
 * files, `_usage`/`_debug` in lib/api/usage.ts and debug.ts); the generic documents routes serve
 * only the read-only ones below, empty for now.
 * They cannot be created, changed or deleted through `/api/collections/` (403).
 */
export const SYSTEM_COLLECTIONS = ["_files", "_users", "_notification", "_usage", "_debug", "_tokens", "_hooks", "_hooks_history"] as const;

/** Alternative spellings clients use. */
// Null prototype: looked up with a name from the URL, `__proto__` or `constructor` must miss.
export const SYSTEM_ALIASES: Record<string, string> = Object.assign(Object.create(null), { _notifications: "_notification" });

/** System collections whose documents the generic routes answer, as read-only empty lists. */
export const READ_ONLY_EMPTY = new Set<string>();

export function systemCollectionId(id: string): string | undefined {
  const name = SYSTEM_ALIASES[id] ?? id;
  return (SYSTEM_COLLECTIONS as readonly string[]).includes(name) ? name : undefined;
}

export function isSystemName(id: string): boolean {
  return id.startsWith("_");
}

export function systemCollectionView(id: string, documentsCount: number): CollectionView {
  return { _id: id, name: id, description: "", documents_count: documentsCount, schema: null, indexes: [], is_system: true };
}
