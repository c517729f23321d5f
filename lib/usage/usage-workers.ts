import { flushDebugLog } from "./debug-log";
import { flushUsage } from "./usage-meter";

/**
 * Flushes the usage counters every 5 s and the debug log every 2 s; `stop` flushes both a last
 * time. A failed flush is logged and its data kept for the next one.
 */
export function startUsageWorkers(usageMs = 5000, debugMs = 2000): { stop(): Promise<void> } {
  const usage = periodic("usage", flushUsage, usageMs);
  const debug = periodic("debug", flushDebugLog, debugMs);
  return {
    async stop() {
      await Promise.all([usage.stop(), debug.stop()]);
    },
  };
}

function periodic(name: string, flush: () => Promise<unknown>, intervalMs: number) {
  let running: Promise<unknown> | undefined;
  const run = () => {
    running ??= flush()
      .catch((error) => console.error(`${name}: flush failed: ${(error as Error).message}`))
      .finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      // Started at once when idle: the caller may close the pool right after `stop()` returns control.
      await (running ? running.then(run) : run());
    },
  };
}
