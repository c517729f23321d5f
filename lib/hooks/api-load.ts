import { performance } from "node:perf_hooks";

/**
 * How busy the API's event loop is, as the hook thread sees it: the share of the last 100 ms the
 * API's thread spent running rather than waiting (its event-loop utilization), in a shared
 * buffer the API's thread writes and the hook thread reads without messages.
 */
const SAMPLE_MS = 100;

export interface ApiLoadSampler {
  buffer: SharedArrayBuffer;
  stop(): void;
}

/** On the API's thread: samples its event loop every 100 ms into a shared buffer. */
export function sampleApiLoad(): ApiLoadSampler {
  const buffer = new SharedArrayBuffer(4);
  const view = new Int32Array(buffer);
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    Atomics.store(view, 0, Math.round(performance.eventLoopUtilization(now, last).utilization * 1000));
    last = now;
  }, SAMPLE_MS);
  timer.unref();
  return { buffer, stop: () => clearInterval(timer) };
}

/** On the hook thread: the API's load, 0 (idle) to 1 (never waiting), as of its last sample. */
export function readApiLoad(buffer: SharedArrayBuffer): () => number {
  const view = new Int32Array(buffer);
  return () => Atomics.load(view, 0) / 1000;
}
