"use client";

import { formatDuration } from "@/lib/client/hook-form";
import type { HookDelivery } from "@/lib/client/webhooks";
import { Badge } from "@/components/ui";

const TONES = { success: "success", error: "danger", retrying: "warning" } as const;

export function DeliveryStatusBadge({ status }: { status: HookDelivery["status"] }) {
  return <Badge tone={TONES[status] ?? "neutral"}>{status}</Badge>;
}

/** "204 · 12 ms · 3 min ago": what a delivery's last attempt got. */
export function deliverySummary(delivery: HookDelivery): string {
  const parts = [delivery.response ? String(delivery.response.status_code) : delivery.error ? "no answer" : "not sent yet"];
  if (delivery.response) parts.push(formatDuration(delivery.response.time_took));
  parts.push(timeAgo(delivery.date_created));
  return parts.join(" · ");
}

export function timeAgo(iso: string, now = Date.now()): string {
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds)) return "";
  if (seconds < 45) return "just now";
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}
