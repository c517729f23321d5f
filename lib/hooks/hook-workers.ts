import { onNotification } from "../outbox/outbox-listener";
import { runOutboxLoop, type OutboxLoop } from "../outbox/outbox-loop";
import { deliverHook } from "./deliver-hook";
import { hookDispatcher } from "./dispatch-hook-events";
import { claimDueDeliveries, msUntilNextDue, recordAttempt, type ClaimedDelivery } from "./hook-deliveries";

/**
 * The hooks' background work in one process: the dispatcher (outbox -> queued deliveries) and a
 * bounded pool of delivery workers. Workers wake on new deliveries (LISTEN `arca_hooks`, from any
 * process) and at the next due retry; at most `perHook` deliveries of one hook are in flight
 * here, so a slow or dead receiver holds a few slots, never the pool.
 */
export interface HookWorkers {
  stop(): Promise<void>;
}

const CONCURRENCY = Number(process.env.ARCA_HOOK_CONCURRENCY || 128);
const PER_HOOK = Number(process.env.ARCA_HOOK_CONCURRENCY_PER_HOOK || 48);
const CLAIM_BATCH_MIN = Math.max(1, Math.min(16, Math.floor(CONCURRENCY / 4)));
// Safety net for a wake lost with a crashed process's lock or connection (not a poll loop).
const IDLE_RECHECK_MS = 5_000;

export function startHookWorkers(): HookWorkers {
  const inFlight = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let total = 0;
  let stopped = false;
  let claiming = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  const schedule = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void fill();
    }, Math.max(0, Math.min(ms, IDLE_RECHECK_MS)));
    timer.unref?.();
  };

  const deliver = async (delivery: ClaimedDelivery) => {
    const key = `${delivery.projectId}/${delivery.hook._id}`;
    try {
      const outcome = await deliverHook(delivery.hook, { operationId: delivery.id, trigger: delivery.trigger, document: delivery.document });
      await recordAttempt(delivery, outcome);
    } catch (error) {
      // The lease brings the delivery back if even recording failed.
      console.error(`hooks: delivery ${delivery.id}: ${(error as Error).message}`);
    } finally {
      total--;
      const left = (inFlight.get(key) ?? 1) - 1;
      if (left > 0) inFlight.set(key, left);
      else inFlight.delete(key);
    }
  };

  async function fill(): Promise<void> {
    if (stopped) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    let drained = false;
    try {
      do {
        again = false;
        const free = CONCURRENCY - total;
        // Claim in batches: while deliveries are in flight, their completions call again.
        if (free <= 0 || (total > 0 && free < CLAIM_BATCH_MIN)) break;
        const busy = [...inFlight].filter(([, n]) => n >= PER_HOOK).map(([k]) => k);
        const claimed = await claimDueDeliveries(Math.min(free, 100), PER_HOOK, busy);
        for (const delivery of claimed) {
          const key = `${delivery.projectId}/${delivery.hook._id}`;
          inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
          total++;
          const task = deliver(delivery).finally(() => {
            running.delete(task);
            void fill();
          });
          running.add(task);
        }
        if (claimed.length === Math.min(free, 100)) again = true;
        else drained = !again;
      } while (again && !stopped);
      // Only when nothing due is left to claim does the timer matter: with slots full, the
      // completions call again (asking each time cost a scan of the queue per delivery).
      if (drained && !stopped) schedule((await msUntilNextDue()) ?? IDLE_RECHECK_MS);
    } catch (error) {
      if (!stopped) {
        console.error(`hooks: claiming deliveries: ${(error as Error).message}`);
        schedule(1000);
      }
    } finally {
      claiming = false;
    }
  }

  const unsubscribe = onNotification("arca_hooks", () => void fill());
  const dispatch = hookDispatcher(() => void fill());
  const dispatcher: OutboxLoop = runOutboxLoop("hooks: dispatch", dispatch.step, { idleRecheckMs: IDLE_RECHECK_MS });
  void fill();

  return {
    async stop() {
      stopped = true;
      unsubscribe();
      if (timer) clearTimeout(timer);
      await dispatcher.stop();
      await dispatch.stop();
      // In-flight deliveries finish (bounded by their timeouts); unfinished ones come back by lease.
      await Promise.race([Promise.all(running), new Promise((r) => setTimeout(r, 3000).unref())]);
    },
  };
}
