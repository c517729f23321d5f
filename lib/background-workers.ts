import { runAsBackground } from "./db/pool";
import { stopFeedHub } from "./feed/feed-hub";
import { startFileWorkers } from "./files/file-workers";
import { startHookWorkers, type HookWorkers } from "./hooks/hook-workers";
import { closeOutboundDispatchers } from "./net/outbound-guard";
import { startOutboxMaintenance } from "./outbox/outbox-maintenance";
import { stopOutboxListener } from "./outbox/outbox-listener";
import { startCounterCompaction } from "./projects/counters";
import { startUsageWorkers } from "./usage/usage-workers";
import { startTokenLastUsedFlush } from "./auth/token-last-used";
import { startIndexSweep } from "./collections/index-sweep";

/**
 * The process's background jobs: file deletions, last_access flushes, orphan and temp sweeps,
 * counter compaction, `_usage` and `_debug` flushes, hook dispatch and deliveries (on this event
 * loop, or where `startHooks` puts them: server.ts gives them a thread), outbox pruning, tokens'
 * `last_used_at` flushes, the sweep of indexes no collection wants.
 * Started once per process by whichever door
 * serves the API: `server.ts` at listen, or the Next route handler at its first request (a plain
 * `next start` deployment).
 */
export interface BackgroundWorkers {
  stop(): Promise<void>;
}

const holder = globalThis as typeof globalThis & { __arcaWorkers?: BackgroundWorkers; __arcaWorkersStopping?: Promise<void> };

export function startBackgroundWorkers(options: { startHooks?: () => HookWorkers } = {}): BackgroundWorkers {
  if (holder.__arcaWorkers) return holder.__arcaWorkers;
  // Everything the workers start runs on the worker pool (no API statement timeout).
  const { files, stopCompaction, usage, hooks, stopOutboxMaintenance, stopTokenUses, stopIndexSweep } = runAsBackground(() => ({
    files: startFileWorkers(),
    stopCompaction: startCounterCompaction(),
    usage: startUsageWorkers(),
    hooks: (options.startHooks ?? startHookWorkers)(),
    stopOutboxMaintenance: startOutboxMaintenance(),
    stopTokenUses: startTokenLastUsedFlush(),
    stopIndexSweep: startIndexSweep(),
  }));
  let stopped: Promise<void> | undefined;
  const workers: BackgroundWorkers = {
    // Once per process (server.ts's `close` and the shutdown path both ask), and bounded: a
    // worker stuck on a slow database or receiver must not hold a graceful stop for long.
    stop() {
      if (stopped) return stopped;
      if (holder.__arcaWorkers === workers) holder.__arcaWorkers = undefined;
      stopped = withTimeout(STOP_TIMEOUT_MS, async () => {
        stopCompaction();
        stopOutboxMaintenance();
        stopIndexSweep();
        await Promise.all([files.stop(), usage.stop(), hooks.stop(), stopFeedHub(), stopTokenUses()]);
        // Readers of the outbox are stopped: its LISTEN connection and outbound pools can go.
        await Promise.all([stopOutboxListener(), closeOutboundDispatchers()]);
      });
      holder.__arcaWorkersStopping = stopped;
      return stopped;
    },
  };
  holder.__arcaWorkers = workers;
  return workers;
}

/** How long a graceful stop waits for the workers' last flushes (ARCA_WORKERS_STOP_TIMEOUT_MS). */
const STOP_TIMEOUT_MS = Number(process.env.ARCA_WORKERS_STOP_TIMEOUT_MS || 5_000);

async function withTimeout(ms: number, work: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      console.error(`workers: not stopped after ${ms} ms, going on without them`);
      resolve();
    }, ms);
    timer.unref();
  });
  try {
    await Promise.race([work(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Stops the process's workers, if running, after their last flush (before the pool closes). */
export async function stopBackgroundWorkers(): Promise<void> {
  // Whoever asked first (server.ts's `close`), a later caller still waits for the same stop.
  await (holder.__arcaWorkers?.stop() ?? holder.__arcaWorkersStopping);
}
