import os from "node:os";

/** Text inputs above this are refused (422): processors are not a bulk text pipeline. */
export const MAX_TEXT_BYTES = 1024 * 1024;

/** Images above this many input pixels are refused (422) before they are decoded: decompression bombs. */
export const MAX_INPUT_PIXELS = 50_000_000;

/** Largest vendor answer or fetched page read (bytes). */
export const MAX_VENDOR_RESPONSE_BYTES = 20 * 1024 * 1024;

/** How long a processor may take (a vendor call, a synthesis): ARCA_PROCESSOR_TIMEOUT_MS, default 30 s. */
export function processorTimeoutMs(): number {
  const value = Number(process.env.ARCA_PROCESSOR_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : 30_000;
}

/** Documents processed at once by one bulk write (`update`/`upsert` actions). */
export const DOCUMENT_CONCURRENCY = 4;

/**
 * A counting semaphore: image and speech jobs of the whole process go through one, sized to the
 * cores, so a burst of writes queues instead of piling decoded images up in memory.
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly size: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await work();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

/** Cores given to image and speech work: all but one, which stays with the event loop (other requests). */
export const WORK_THREADS = Math.max(1, os.availableParallelism() - 1);

export const heavyWork = new Semaphore(WORK_THREADS);

/** Maps with at most `limit` calls in flight, results in input order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  let sliceStart = performance.now();
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index], index);
      } catch (error) {
        failed = true;
        throw error;
      }
      // Work that awaits nothing slow (documents without processors) resolves in microtasks,
      // which never let the event loop turn: 30,000 documents of one bulk update held every
      // project's requests for 1.5 s. Past a slice, the loop gets a turn.
      if (performance.now() - sliceStart > SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
  };
  const workers = Array.from({ length: Math.min(limit, items.length) }, worker);
  const settled = await Promise.allSettled(workers);
  const rejected = settled.find((s) => s.status === "rejected");
  if (rejected) throw (rejected as PromiseRejectedResult).reason;
  return results;
}

/** The longest stretch `mapBounded` works without letting the event loop turn. */
const SLICE_MS = 10;
