import { onNotification } from "../outbox/outbox-listener";
import { runOutboxLoop, type OutboxLoop } from "../outbox/outbox-loop";
import { deliverHook } from "./deliver-hook";
import { hookDispatcher } from "./dispatch-hook-events";
import { claimDueDeliveries, msUntilNextDue, recordAttempt, type ClaimedDelivery } from "./hook-deliveries";

/**
 * The hooks' background work in one process: the dispatcher (outbox -> queued deliveries) and a
 * bounded pool of delivery workers. Workers wake on new deliveries (LISTEN `arca_hooks`, from any
 * process) and at the next due retry; at most `perHook` deliveries of one hook and `perProject`
 * of one project are in flight here, so a slow or dead receiver holds a few slots, never the pool,
 * and one project's dead receivers never hold another project's deliveries back.
 *
 * Requests come first: while the API's event loop is busy (`apiLoad`, api-load.ts, at least 0.8
 * of the last 100 ms), the workers keep at most 16 deliveries in flight, 8 of one hook, and claim
 * at most every 25 ms, so at most 640 deliveries a second; the dispatcher queues deliveries at
 * that pace too (dispatch-hook-events.ts). A delivery costs CPU in this process and in
 * PostgreSQL (its claim, its outcome, its queueing), which a saturated machine takes from the
 * writes that cause it; the outbox and the queue are durable and drain at full pace once the
 * load eases. Half the paced slots per hook: a dead receiver holds 8, the other hooks keep 8.
 */
export interface HookWorkers {
  stop(): Promise<void>;
}

const CONCURRENCY = Number(process.env.ARCA_HOOK_CONCURRENCY || 128);
const PER_HOOK = Number(process.env.ARCA_HOOK_CONCURRENCY_PER_HOOK || 48);
/**
 * Three quarters of the pool: one project's dead receivers hold at most this many, other projects
 * keep the rest; above the per-hook cap, so one dead hook leaves its project's other hooks room.
 */
const PER_PROJECT = Number(process.env.ARCA_HOOK_CONCURRENCY_PER_PROJECT || 96);
/** The smallest batch worth a claim while deliveries are in flight: a quarter of the slots, at most 16. */
const claimBatchMin = (slots: number) => Math.max(1, Math.min(16, Math.floor(slots / 4)));
// Safety net for a wake lost with a crashed process's lock or connection (not a poll loop).
const IDLE_RECHECK_MS = 5_000;
const BUSY_API_LOAD = 0.8;
const BUSY_IN_FLIGHT = 16;
const BUSY_PER_HOOK = 8;
const BUSY_PER_PROJECT = 12;
const BUSY_CLAIM_EVERY_MS = 25;

export interface HookWorkerOptions {
  /** How busy the API's event loop is, 0 to 1 (api-load.ts); none: never busy. */
  apiLoad?: () => number;
  /** The safety-net recheck (tests stretch it, so only real wakes can deliver). */
  idleRecheckMs?: number;
}

export function startHookWorkers(options: HookWorkerOptions = {}): HookWorkers {
  const apiLoad = options.apiLoad ?? (() => 0);
  const idleRecheckMs = options.idleRecheckMs ?? IDLE_RECHECK_MS;
  const inFlight = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let total = 0;
  let stopped = false;
  let claiming = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let pausedUntil = 0;

  // A wake is never put off: a later schedule keeps an earlier timer. (Replacing it lost the
  // paced 25 ms wake a completion had set while a claim asked for the next due time, whose answer,
  // none, then set the recheck instead: delivery stalled for 5 s.)
  let timerAt = 0;
  const schedule = (ms: number) => {
    if (stopped) return;
    const wait = Math.max(0, Math.min(ms, idleRecheckMs));
    if (timer && timerAt <= Date.now() + wait) return;
    if (timer) clearTimeout(timer);
    timerAt = Date.now() + wait;
    timer = setTimeout(() => {
      timer = undefined;
      void fill();
    }, wait);
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
    const paused = pausedUntil - Date.now();
    if (paused > 0) return schedule(paused);
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    let drained = false;
    try {
      do {
        again = false;
        const apiBusy = apiLoad() >= BUSY_API_LOAD;
        const slots = apiBusy ? BUSY_IN_FLIGHT : CONCURRENCY;
        const free = slots - total;
        const caps = apiBusy ? { perHook: BUSY_PER_HOOK, perProject: BUSY_PER_PROJECT } : { perHook: PER_HOOK, perProject: PER_PROJECT };
        // Claim in batches: while deliveries are in flight, their completions call again. (Of the
        // slots there are now: paced, waiting for 16 free of 16 waited for every delivery in
        // flight, a hung one's whole timeout.)
        if (free <= 0 || (total > 0 && free < claimBatchMin(slots))) break;
        const claimed = await claimDueDeliveries(Math.min(free, 100), caps, inFlight);
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
        if (apiBusy) {
          pausedUntil = Date.now() + BUSY_CLAIM_EVERY_MS;
          break;
        }
      } while (again && !stopped);
      // Only when nothing due is left to claim does the timer matter: with slots full, the
      // completions call again (asking each time cost a scan of the queue per delivery).
      if (drained && !stopped) schedule((await msUntilNextDue()) ?? idleRecheckMs);
    } catch (error) {
      if (!stopped) {
        console.error(`hooks: claiming deliveries: ${(error as Error).message}`);
        schedule(1000);
      }
    } finally {
      claiming = false;
      // A wake that came after the last claim (a completion, a NOTIFY) must not wait for the timer.
      if (again && !stopped) {
        again = false;
        void fill();
      }
    }
  }

  const unsubscribe = onNotification("arca_hooks", () => void fill());
  const dispatch = hookDispatcher(() => void fill(), { apiBusy: () => apiLoad() >= BUSY_API_LOAD });
  const dispatcher: OutboxLoop = runOutboxLoop("hooks: dispatch", dispatch.step, { idleRecheckMs });
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
