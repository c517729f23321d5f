import { ANY_COLLECTION, entryScope } from "./permission";
import type { Action, PermissionEntry, Principal } from "./principal";

/**
 * The one authorization decision of Arca. `collection` is a collection id (system ones included);
 * `documentId` narrows it to one document when the request names one. `manage` asks about the
 * project's administration (tokens, members, collection definitions) rather than its data.
 *
 * Users: owners and admins may do everything in the project; members work with data (documents,
 * files) and read everything else, but cannot manage tokens, members or collection definitions.
 * Tokens: `allow.all` grants everything; otherwise each action lists what it reaches, and the
 * administrative collections (`_tokens`, `_users`) are reached only when named explicitly.
 */
export interface Target {
  collection: string;
  documentId?: string;
  manage?: boolean;
}

const ADMIN_COLLECTIONS = new Set(["_tokens", "_users"]);

export function can(principal: Principal, action: Action, target: Target): boolean {
  if (principal.kind === "user") {
    if (principal.role === "owner" || principal.role === "admin") return true;
    if (action === "read") return true;
    return !target.manage && !ADMIN_COLLECTIONS.has(target.collection);
  }
  const { allow } = principal;
  if (allow.all) return true;
  return allow[action].some((entry) => entryGrants(entry, target));
}

/**
 * Whether `action` may reach some document of `collection`: the whole collection, or one of its
 * documents by a per-document grant. For a write whose document is named in the body, decided
 * before the body is read; the document itself is checked with `can` once it is known.
 */
export function mayReach(principal: Principal, action: Action, collection: string): boolean {
  if (principal.kind === "user" || principal.allow.all) return can(principal, action, { collection });
  return principal.allow[action].some((entry) => reachesCollection(entryScope(entry).collection, collection));
}

function entryGrants(entry: PermissionEntry, target: Target): boolean {
  const scope = entryScope(entry);
  if (!reachesCollection(scope.collection, target.collection)) return false;
  // `{what, where}` without `what_id` covers the whole collection, whatever `what` says; with
  // it, the one document (the narrower reading of `{what: "collection", what_id}`).
  if (scope.documentId === undefined) return true;
  // A grant on one document never reaches the collection's definition or its whole list.
  return !target.manage && target.documentId !== undefined && scope.documentId === target.documentId;
}

function reachesCollection(granted: string, collection: string): boolean {
  return granted === ANY_COLLECTION || granted === collection;
}

/**
 * The collections whose every document `principal` may read, or undefined for all of them: for
 * records that carry other collections' documents (`_hooks_history`), shown only where those are.
 */
export function wholeCollectionsReadable(principal: Principal): string[] | undefined {
  if (principal.kind === "user" || principal.allow.all) return undefined;
  const whole = principal.allow.read.map(entryScope).filter((scope) => scope.documentId === undefined);
  if (whole.some((scope) => scope.collection === ANY_COLLECTION)) return undefined;
  return whole.map((scope) => scope.collection);
}
