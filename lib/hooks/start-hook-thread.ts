import { Worker, SHARE_ENV } from "node:worker_threads";
import { databaseUrl } from "../db/pool";
import { sampleApiLoad } from "./api-load";
import type { HookWorkers } from "./hook-workers";

/**
 * Runs the hooks' background work (hook-workers.ts) on a worker thread of lower CPU priority (a
 * nice value 10 above the API's) instead of the API's event loop. Dispatching and delivering cost
 * CPU for every hooked write: on the API's thread they took the event loop from requests (creates
 * into a collection with 3 hooks ran at 0.35x of one without, docs/performance.md). The thread
 * shares the process's environment, and is started again a second after it fails: its state is
 * in PostgreSQL. The thread also sees how busy the API's event loop is (api-load.ts): under a load
 * that keeps it busy, the workers deliver at a bounded pace (hook-workers.ts).
 *
 * Started by `npm start`'s server (server.ts); the Next route handler door keeps the hook
 * workers on its own thread (its bundle has no TypeScript to load a thread from).
 */
export const HOOK_THREAD_NICE = 10;
const STOP_WAIT_MS = 4_000;

export interface HookThread extends HookWorkers {
  /** The thread running now (none between a failure and its restart). */
  current(): Worker | undefined;
}

export function startHookThread(): HookThread {
  let worker: Worker | undefined;
  let stopping = false;
  let restartTimer: NodeJS.Timeout | undefined;
  const apiLoad = sampleApiLoad();

  const start = () => {
    const thread = new Worker(new URL("./hook-thread-boot.mjs", import.meta.url), {
      env: SHARE_ENV,
      workerData: { databaseUrl: databaseUrl(), nice: HOOK_THREAD_NICE, apiLoad: apiLoad.buffer },
      // Profiling and inspection flags are for the main thread.
      execArgv: [],
    });
    thread.on("error", (error) => console.error(`hooks: thread failed: ${error.message}`));
    thread.on("exit", () => {
      if (worker !== thread || stopping) return;
      worker = undefined;
      console.error("hooks: thread ended; starting it again in 1 s");
      restartTimer = setTimeout(start, 1000);
      restartTimer.unref();
    });
    worker = thread;
  };
  start();

  return {
    current: () => worker,
    async stop() {
      stopping = true;
      apiLoad.stop();
      if (restartTimer) clearTimeout(restartTimer);
      const thread = worker;
      if (!thread) return;
      // In-flight deliveries get a few seconds (as on the API's thread); unfinished ones come
      // back by lease.
      const ended = new Promise<void>((resolve) => {
        thread.once("message", (message) => message === "stopped" && resolve());
        thread.once("exit", () => resolve());
        setTimeout(resolve, STOP_WAIT_MS).unref();
      });
      thread.postMessage("stop");
      await ended;
      await thread.terminate();
    },
  };
}
