"use client";

import type { LiveFeed } from "@/lib/client/use-live-feed";
import "./live.css";

const LABELS = { connecting: "Connecting...", live: "Live", reconnecting: "Reconnecting..." } as const;

/** Whether a list is following its change feed: a small badge, read out politely on change. */
export function LiveStatus({ feed }: { feed: LiveFeed }) {
  const live = feed.status === "live";
  return (
    <span
      role="status"
      data-testid="live-status"
      data-state={feed.status}
      title={live ? "Changes appear here as they happen." : "Changes made meanwhile appear once the connection is back."}
      className={`inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium ${live ? "bg-emerald-50 text-emerald-800" : "bg-amber-50 text-amber-800"}`}
    >
      <span aria-hidden className={`h-2 w-2 rounded-full ${live ? "bg-emerald-500" : "bg-amber-500"}`} />
      {LABELS[feed.status]}
    </span>
  );
}
