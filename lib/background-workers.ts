import { stopFeedHub } from "./feed/feed-hub";
import { startFileWorkers } from "./files/file-workers";
import { startHookWorkers } from "./hooks/hook-workers";
import { closeOutboundDispatchers } from "./net/outbound-guard";
import { startOutboxMaintenance } from "./outbox/outbox-maintenance";
import { stopOutboxListener } from "./outbox/outbox-listener";
import { startCounterCompaction } from "./projects/counters";
import { startUsageWorkers } from "./usage/usage-workers";

/**
 * The process's background jobs: file deletions, last_access flushes, orphan and temp sweeps,
 * counter compaction, `_usage` and `_debug` flushes, hook dispatch and deliveries, outbox pruning.
 * Started once per process by whichever door
 * serves the API: `server.ts` at listen, or the Next route handler at its first request (a plain
 * `next start` deployment).
 */
export interface BackgroundWorkers {
  stop(): Promise<void>;
}

const holder = globalThis as typeof globalThis & { __arcaWorkers?: BackgroundWorkers };

export function startBackgroundWorkers(): BackgroundWorkers {
  if (holder.__arcaWorkers) return holder.__arcaWorkers;
  const files = startFileWorkers();
  const stopCompaction = startCounterCompaction();
  const usage = startUsageWorkers();
  const hooks = startHookWorkers();
  const stopOutboxMaintenance = startOutboxMaintenance();
  const workers: BackgroundWorkers = {
    async stop() {
      if (holder.__arcaWorkers === workers) holder.__arcaWorkers = undefined;
      stopCompaction();
      stopOutboxMaintenance();
      await Promise.all([files.stop(), usage.stop(), hooks.stop(), stopFeedHub()]);
      // Readers of the outbox are stopped: its LISTEN connection and outbound pools can go.
      await Promise.all([stopOutboxListener(), closeOutboundDispatchers()]);
    },
  };
  holder.__arcaWorkers = workers;
  return workers;
}

/** Stops the process's workers, if running, after their last flush (before the pool closes). */
export async function stopBackgroundWorkers(): Promise<void> {
  await holder.__arcaWorkers?.stop();
}
