"use client";

import { useQueryClient, type QueryKey } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";

export type LiveChange = "created" | "updated" | "deleted";
/** `live`: subscribed; `connecting`: first connection; `reconnecting`: dropped, resuming. */
export type LiveStatus = "connecting" | "live" | "reconnecting";

export interface LiveFeed {
  status: LiveStatus;
  /** Ids changed in the last moments (for the row flash), with what happened to them. */
  flashed: ReadonlyMap<string, LiveChange>;
}

const KINDS: LiveChange[] = ["created", "updated", "deleted"];
/** How long a changed row stays marked (the CSS animation in components/live/live.css). */
export const FLASH_MS = 1600;
/** Changes arriving together refetch the lists once. */
const COALESCE_MS = 60;
const MAX_BACKOFF_MS = 30_000;

/**
 * The change feed's URL for the dashboard (docs/realtime.md). EventSource cannot send
 * `X-Project`, so the project travels as `?project=`; the next-auth cookie of this origin
 * authorizes it. `lastEventId` resumes a feed the browser itself can no longer resume.
 */
export function liveFeedUrl(project: string, collection: string, lastEventId?: string): string {
  const params = new URLSearchParams({ project });
  if (lastEventId) params.set("last_event_id", lastEventId);
  return `/api/collections/${encodeURIComponent(collection)}/events/?${params}`;
}

/**
 * Keeps TanStack Query lists of one collection live: subscribes to its change feed and, on each
 * `created`/`updated`/`deleted`, invalidates the given query keys (a refetch answers with the
 * page's sort, filter and pagination applied, which patching cached pages by hand could not)
 * and marks the document's id for a short flash.
 *
 * Never misses a change: the browser's own reconnection sends `Last-Event-ID` (the feed's first
 * message gives a position even before any change); after the system went offline, or the
 * browser gave up on an error answer, the hook reopens with `?last_event_id=` of the last change
 * it saw; and whenever a feed starts afresh (the first connection, no change seen yet, or the
 * server refused the resume: 410 once events expired) the lists are refetched once it is open,
 * covering what happened before it.
 */
export function useLiveFeed({ project, collection, queryKeys, enabled = true }: { project: string; collection: string; queryKeys: QueryKey[]; enabled?: boolean }): LiveFeed {
  const client = useQueryClient();
  const [status, setStatus] = useState<LiveStatus>("connecting");
  const [flashed, setFlashed] = useState<ReadonlyMap<string, LiveChange>>(() => new Map());
  // The keys are read when a change comes, so a new array each render does not resubscribe.
  const keys = useRef(queryKeys);
  keys.current = queryKeys;

  useEffect(() => {
    if (!enabled || typeof EventSource === "undefined") return;
    let source: EventSource | undefined;
    let lastId: string | undefined;
    let failures = 0;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let refresh: ReturnType<typeof setTimeout> | undefined;
    const flashTimers = new Set<ReturnType<typeof setTimeout>>();

    const refetchSoon = () => {
      if (refresh) return;
      refresh = setTimeout(() => {
        refresh = undefined;
        for (const queryKey of keys.current) void client.invalidateQueries({ queryKey });
      }, COALESCE_MS);
    };
    const flash = (id: string, change: LiveChange) => {
      setFlashed((current) => new Map(current).set(id, change));
      const timer = setTimeout(() => {
        flashTimers.delete(timer);
        setFlashed((current) => {
          const next = new Map(current);
          next.delete(id);
          return next;
        });
      }, FLASH_MS);
      flashTimers.add(timer);
    };

    const connect = (resumeFrom?: string) => {
      clearTimeout(retry);
      retry = undefined;
      const feed = new EventSource(liveFeedUrl(project, collection, resumeFrom));
      source = feed;
      let opened = false;
      feed.onopen = () => {
        failures = 0;
        setStatus("live");
        // Later opens of this EventSource are the browser's resumes (Last-Event-ID): nothing missed.
        if (!opened && !resumeFrom) refetchSoon();
        opened = true;
      };
      for (const kind of KINDS) {
        feed.addEventListener(kind, (event) => {
          const message = event as MessageEvent<string>;
          if (message.lastEventId) lastId = message.lastEventId;
          let id: unknown;
          try {
            id = (JSON.parse(message.data) as { _id?: unknown } | null)?._id;
          } catch {
            id = undefined;
          }
          if (typeof id === "string") flash(id, kind);
          refetchSoon();
        });
      }
      feed.onerror = () => {
        setStatus("reconnecting");
        // CONNECTING: the browser retries by itself, sending Last-Event-ID.
        if (feed.readyState !== EventSource.CLOSED) return;
        // CLOSED: the server answered with an error (410 expired, 401, 503...) and the browser
        // gave up. Try once to resume from the last change seen, then start afresh (and refetch).
        feed.close();
        failures += 1;
        const from = failures === 1 && !resumeFrom ? lastId : undefined;
        if (failures > 1) lastId = undefined;
        retry = setTimeout(() => connect(from), Math.min(MAX_BACKOFF_MS, 500 * 2 ** (failures - 1)));
      };
    };
    // The system says the network is gone: the stream is dead even if no error surfaced yet (a
    // half-open TCP connection can stay silent until the next ping; DevTools' offline emulation
    // leaves it open). Close it and, once back online, resume at once from the last change seen.
    let away = false;
    const offline = () => {
      away = true;
      source?.close();
      clearTimeout(retry);
      retry = undefined;
      setStatus("reconnecting");
    };
    const online = () => {
      if (!away && !retry) return;
      away = false;
      connect(lastId);
    };

    connect();
    window.addEventListener("offline", offline);
    window.addEventListener("online", online);
    return () => {
      window.removeEventListener("offline", offline);
      window.removeEventListener("online", online);
      source?.close();
      clearTimeout(retry);
      clearTimeout(refresh);
      for (const timer of flashTimers) clearTimeout(timer);
      setFlashed(new Map());
      setStatus("connecting");
    };
  }, [client, project, collection, enabled]);

  return { status, flashed };
}

/** The flash class of a row, if its document just changed. */
export function flashClass(feed: LiveFeed | undefined, id: string): string {
  return feed?.flashed.has(id) ? "live-flash" : "";
}
