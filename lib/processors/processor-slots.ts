import { poolSize } from "../db/pool";
import { serviceUnavailable } from "../errors";
import { processorTimeoutMs } from "./processor-limits";

/**
 * A write that runs processors holds a pooled connection, and its document's row, for as long as
 * its vendors take (up to ARCA_PROCESSOR_TIMEOUT_MS each). Unbounded, twenty such writes of one
 * project (a slow vendor, or a slow page it names for `readability_com`) held every connection of
 * the pool and stalled every other project's requests. So these writes wait here, before they take
 * a connection: at most a quarter of the pool per project and half of it in all, per process; the
 * rest of the pool stays with everyone else. A write that waits past the processor time limit
 * is 503 with Retry-After.
 */
interface Waiter {
  projectId: string;
  grant(): void;
}

export const processorSlotsPerProject = () => Math.max(1, Math.floor(poolSize() / 4) || 1);
export const processorSlotsInAll = () => Math.max(1, Math.floor(poolSize() / 2) || 1);

const held = new Map<string, number>();
let heldInAll = 0;
const queue: Waiter[] = [];

const fits = (projectId: string) => heldInAll < processorSlotsInAll() && (held.get(projectId) ?? 0) < processorSlotsPerProject();

function take(projectId: string): void {
  heldInAll++;
  held.set(projectId, (held.get(projectId) ?? 0) + 1);
}

function give(projectId: string): void {
  heldInAll--;
  const left = (held.get(projectId) ?? 1) - 1;
  if (left > 0) held.set(projectId, left);
  else held.delete(projectId);
  // The longest waiting write whose project has room goes next (one project at its cap does not
  // hold back another's).
  for (let i = 0; i < queue.length && heldInAll < processorSlotsInAll(); ) {
    if (!fits(queue[i].projectId)) {
      i++;
      continue;
    }
    const [waiter] = queue.splice(i, 1);
    take(waiter.projectId);
    waiter.grant();
  }
}

export async function withProcessorSlot<T>(projectId: string, work: () => Promise<T>): Promise<T> {
  if (fits(projectId)) take(projectId);
  else
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        projectId,
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        queue.splice(queue.indexOf(waiter), 1);
        reject(serviceUnavailable("Too many writes with processors are running in this project; try again", 5));
      }, processorTimeoutMs());
      queue.push(waiter);
    });
  try {
    return await work();
  } finally {
    give(projectId);
  }
}
