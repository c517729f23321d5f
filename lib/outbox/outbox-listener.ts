import pg from "pg";
import { pool } from "../db/pool";

/**
 * One LISTEN connection per process, shared by every background reader in it: `arca_events`
 * (events were committed: the hooks dispatcher and the change feed) and `arca_hooks` (new hook
 * deliveries, for the delivery workers of every process). On a lost connection every reader is
 * woken (it may have missed a notification) and the listener reconnects with a back-off.
 *
 * Writers do NOT notify inside their transaction: PostgreSQL serialises notifying commits on one
 * lock held through the WAL flush, which cut commit throughput ~2.5x (docs/performance.md). A
 * writer calls `signalOutboxCommit` after its commit instead: this process's readers wake at once,
 * and the others through one NOTIFY sent on the listener's own connection (no WAL flush waited
 * for). Those NOTIFYs are paced: at most one every NOTIFY_INTERVAL_MS, commits signalled meanwhile
 * share the next. One per commit cost a transaction in PostgreSQL and a round trip here for every
 * create (6 % of the API process's busy time in bench:documents), for a reader elsewhere that
 * steps at most every 10 ms anyway. The listener ignores its own NOTIFYs: this process was woken
 * when it sent them.
 */
type Wake = () => void;
export type Channel = "arca_events" | "arca_hooks";
const CHANNELS: Channel[] = ["arca_events", "arca_hooks"];
/** Other processes hear of this one's commits at most this much later (their readers step every 10 ms). */
export const NOTIFY_INTERVAL_MS = 10;

interface ListenerState {
  wakes: Set<{ channel: Channel; wake: Wake }>;
  client?: pg.Client;
  connecting?: Promise<void>;
  stopped: boolean;
  retryTimer?: NodeJS.Timeout;
  notifying?: boolean;
  notifyAgain?: boolean;
  /** When the last NOTIFY was sent (`performance.now()`). */
  notifiedAt?: number;
}

const holder = globalThis as typeof globalThis & { __arcaOutboxListener?: ListenerState };

function state(): ListenerState {
  holder.__arcaOutboxListener ??= { wakes: new Set(), stopped: false };
  return holder.__arcaOutboxListener;
}

/** Calls `wake` after every commit that wrote events (in any process). Returns the unsubscribe. */
export function onOutboxCommit(wake: Wake): () => void {
  return onNotification("arca_events", wake);
}

/** Calls `wake` on every notification of `channel` (from any process). Returns the unsubscribe. */
export function onNotification(channel: Channel, wake: Wake): () => void {
  const s = state();
  s.stopped = false;
  const entry = { channel, wake };
  s.wakes.add(entry);
  void connect(s);
  return () => {
    s.wakes.delete(entry);
  };
}

/** After a commit that wrote events: wakes this process's readers and, by NOTIFY, every other process's. */
export function signalOutboxCommit(): void {
  const s = state();
  wakeAll(s, "arca_events");
  if (s.stopped) return;
  if (s.notifying) {
    s.notifyAgain = true;
    return;
  }
  void notifyOtherProcesses(s);
}

async function notifyOtherProcesses(s: ListenerState): Promise<void> {
  s.notifying = true;
  try {
    do {
      const wait = (s.notifiedAt ?? -Infinity) + NOTIFY_INTERVAL_MS - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)));
      if (s.stopped) break;
      s.notifyAgain = false;
      s.notifiedAt = performance.now();
      // Without a listener here (a process serving only the API), a plain autocommit NOTIFY.
      await (s.client ?? pool()).query("SELECT pg_notify('arca_events', '')");
    } while (s.notifyAgain);
  } catch (error) {
    // The other processes' readers also look on their own every few seconds.
    console.error(`outbox: NOTIFY failed: ${(error as Error).message}`);
  } finally {
    s.notifying = false;
  }
}

function wakeAll(s: ListenerState, channel?: string): void {
  for (const entry of s.wakes) if (!channel || entry.channel === channel) entry.wake();
}

async function connect(s: ListenerState, delay = 0): Promise<void> {
  if (s.client || s.connecting || s.stopped) return s.connecting;
  s.connecting = (async () => {
    if (delay) await new Promise((r) => (s.retryTimer = setTimeout(r, delay)));
    if (s.stopped) return;
    const client = new pg.Client(pool().options);
    try {
      await client.connect();
      client.on("notification", (message) => {
        // Its own NOTIFY (signalOutboxCommit): this process's readers were woken when it was sent.
        if (message.processId !== (client as pg.Client & { processID: number | null }).processID) wakeAll(s, message.channel);
      });
      client.on("error", (error) => lost(s, client, error));
      client.on("end", () => lost(s, client));
      // Its NOTIFYs (signalOutboxCommit) need not wait for a WAL flush: a lost one costs a delay.
      await client.query("SET synchronous_commit = off");
      for (const channel of CHANNELS) await client.query(`LISTEN ${channel}`);
      if (s.stopped) {
        await client.end().catch(() => {});
        return;
      }
      s.client = client;
      wakeAll(s); // anything committed while we were not listening
    } catch (error) {
      await client.end().catch(() => {});
      if (!s.stopped) {
        console.error(`outbox: LISTEN failed: ${(error as Error).message}`);
        s.connecting = undefined;
        void connect(s, Math.min(5000, (delay || 100) * 2));
        return;
      }
    } finally {
      s.connecting = undefined;
    }
  })();
  return s.connecting;
}

function lost(s: ListenerState, client: pg.Client, error?: Error): void {
  if (s.client !== client) return;
  s.client = undefined;
  if (s.stopped) return;
  if (error) console.error(`outbox: LISTEN connection lost: ${error.message}`);
  wakeAll(s);
  void connect(s, 200);
}

/** Closes the LISTEN connection (server shutdown, after the readers stopped). */
export async function stopOutboxListener(): Promise<void> {
  const s = holder.__arcaOutboxListener;
  if (!s) return;
  s.stopped = true;
  s.wakes.clear();
  if (s.retryTimer) clearTimeout(s.retryTimer);
  await s.connecting?.catch(() => {});
  const client = s.client;
  s.client = undefined;
  await client?.end().catch(() => {});
}
