import { onOutboxCommit } from "./outbox-listener";

/**
 * Runs `step` whenever events may be waiting: after every commit that wrote events (LISTEN),
 * at start, and, while committed events are held back behind an older transaction still running,
 * on a short back-off (no polling otherwise). Steps never overlap; a wake during a step runs
 * the step once more afterwards.
 */
export interface StepResult {
  /** The step took a full batch: run again at once. */
  more: boolean;
  /** Committed events wait behind an older running transaction: look again shortly. */
  held: boolean;
}

export interface OutboxLoop {
  wake(): void;
  stop(): Promise<void>;
}

export function runOutboxLoop(name: string, step: () => Promise<StepResult>, options: { idleRecheckMs?: number } = {}): OutboxLoop {
  let running: Promise<void> | undefined;
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
          const result = await step();
          if (result.more) again = true;
          if (result.held) {
            heldDelay = Math.min(1000, heldDelay ? heldDelay * 2 : 10);
            schedule(heldDelay);
          } else heldDelay = 0;
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
