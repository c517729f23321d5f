import { parentPort } from "node:worker_threads";
import { TEXT_TRANSFORMS } from "./text-processors";
import type { TextJob } from "./text-work";

/** The text thread (lib/processors/text-work.ts): runs one job per message and answers it. */
parentPort!.on("message", ({ id, job }: { id: number; job: TextJob }) => {
  try {
    parentPort!.postMessage({ id, result: TEXT_TRANSFORMS[job.kind](job.input) });
  } catch (error) {
    parentPort!.postMessage({ id, error: (error as Error).message, tooDeep: error instanceof RangeError });
  }
});

// Loaded: jobs may come (their time counts from here on).
parentPort!.postMessage({ ready: true });
