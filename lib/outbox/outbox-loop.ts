import { onOutboxCommit } from "./outbox-listener";

/**
 * Runs `step` whenever events may be waiting: after every commit that wrote events (LISTEN),
 * at start, and, while committed events are held back behind an older transaction still running,
 * on a short back-off (no polling otherwise). Steps never overlap; a wake during a step runs
 * the step once more afterwards.
 *
 * Under a stream of commits every commit wakes the loop: steps then start at most every
 * `minIntervalMs` (default 10 ms), so one step takes what many commits wrote instead of each
 * commit paying for a step of its own. A wake after a quiet spell steps at once.
 */
export interface StepResult {
  /** The step took a full batch: run again at once. */
  more: boolean;
  /** Committed events wait behind an older running transaction: look again shortly. */
  held: boolean;
  /** The step holds back on purpose (pacing): run again after this many ms, or at a wake. */
  waitMs?: number;
}

export interface OutboxLoop {
  wake(): void;
  stop(): Promise<void>;
}

export function runOutboxLoop(name: string, step: () => Promise<StepResult>, options: { idleRecheckMs?: number; minIntervalMs?: number } = {}): OutboxLoop {
  const minInterval = options.minIntervalMs ?? 10;
  let running: Promise<void> | undefined;
  let lastStart = 0;
  let again = false;
  let stopped = false;
  let heldDelay = 0;
  let timer: NodeJS.Timeout | undefined;

  const schedule = (ms: number) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      wake();
    }, ms);
    timer.unref?.();
  };

  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        do {
          again = false;
          const wait = lastStart + minInterval - Date.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          if (stopped) break;
          lastStart = Date.now();
          const result = await step();
          if (result.more) again = true;
          if (result.held) {
            heldDelay = Math.min(1000, heldDelay ? heldDelay * 2 : 10);
            schedule(result.waitMs === undefined ? heldDelay : Math.min(heldDelay, result.waitMs));
          } else {
            heldDelay = 0;
            if (result.waitMs !== undefined) schedule(result.waitMs);
          }
        } while (again && !stopped);
      } catch (error) {
        if (!stopped) {
          console.error(`${name}: ${(error as Error).message}`);
          schedule(1000);
        }
      } finally {
        running = undefined;
      }
      if (!stopped && options.idleRecheckMs && !timer) schedule(options.idleRecheckMs);
    })();
  };

  const unsubscribe = onOutboxCommit(wake);
  wake();
  return {
    wake,
    async stop() {
      stopped = true;
      unsubscribe();
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
