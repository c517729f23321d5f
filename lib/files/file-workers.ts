import { processBlobDeletions, blobDeletionsIdle } from "./blob-deletions";
import { fileBlobStore } from "./file-blob-store";
import { flushLastAccess } from "./last-access";
import { cleanUpAfterCrash } from "./clean-up-after-crash";
import { markUnreferencedFiles, sweepOrphanFiles } from "./orphan-sweep";

/**
 * The background work of files, started with the server (`startServer`) and stopped with it.
 * Each job is idempotent and crash-safe, runs at start and then periodically, and never
 * overlaps itself:
 * - blob deletions (every 30 s; the write that queues one also runs it right after commit),
 *   here only for entries older than a minute, so the post-commit run of the writing process
 *   (which knows its data dir) goes first;
 * - `last_access` flush (every second);
 * - start-up cleanup (once): temp files, pending blobs and unknown blobs a killed process left;
 * - orphan sweep (every minute: only marked files past their project's TTL, in batches);
 * - unreferenced-files check (at start, then hourly: the safety net that marks files no
 *   document holds; linear in the documents with files);
 * - temp sweep (every 10 minutes: staged uploads untouched for an hour whose owner cannot be
 *   judged, e.g. another host's).
 */
export interface FileWorkers {
  stop(): Promise<void>;
}

function reportCleanup(removed: { tempFiles: number; queued: number; blobs: number }): void {
  if (removed.tempFiles + removed.queued + removed.blobs === 0) return;
  console.info(`files: start-up cleanup: ${removed.tempFiles} temp files, ${removed.queued} queued or unfinished blobs, ${removed.blobs} unknown blobs removed`);
}

const log = (job: string) => (error: unknown) => console.error(`files: ${job}: ${(error as Error).message}`);

export function startFileWorkers(): FileWorkers {
  const jobs: { every?: number; run: () => Promise<unknown>; name: string; busy?: boolean }[] = [
    { name: "start-up cleanup", run: () => cleanUpAfterCrash().then(reportCleanup) },
    { name: "blob deletions", every: 30_000, run: () => processBlobDeletions({ minAgeMs: 60_000 }) },
    { name: "last_access flush", every: 1_000, run: () => flushLastAccess() },
    { name: "orphan sweep", every: 60_000, run: () => sweepOrphanFiles() },
    { name: "unreferenced files check", every: 3_600_000, run: () => markUnreferencedFiles() },
    { name: "temp sweep", every: 600_000, run: () => fileBlobStore().sweepTemp(3_600_000) },
  ];
  const running = new Set<Promise<unknown>>();
  const tick = (job: (typeof jobs)[number]) => {
    if (job.busy) return;
    job.busy = true;
    const run = job.run().catch(log(job.name)).finally(() => {
      job.busy = false;
      running.delete(run);
    });
    running.add(run);
  };
  const timers = jobs.flatMap((job) => {
    tick(job);
    if (!job.every) return [];
    const timer = setInterval(() => tick(job), job.every);
    timer.unref();
    return timer;
  });
  return {
    async stop() {
      timers.forEach(clearInterval);
      await Promise.all(running);
      await blobDeletionsIdle();
      await flushLastAccess();
    },
  };
}
