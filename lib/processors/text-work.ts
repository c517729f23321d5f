import path from "node:path";
import { Worker } from "node:worker_threads";

/**
 * Markdown, HTML-to-text and reader-mode extraction parse request data with libraries whose cost
 * can grow far faster than their input (`"*a"` x 150,000 took marked 20 s; 100,000 nested `<div>`s
 * kept Readability busy for more than ten minutes), and a parse cannot be interrupted on the event
 * loop, where it stopped every project's requests. They run here instead: on one worker thread,
 * one job at a time, each with the processor time limit; a job past it ends the thread (it is
 * made again for the next job). A stack overflow there (deeply nested input) comes back as
 * `tooDeep`.
 */
export type TextJob = { kind: "markdown" | "html_to_text" | "readability"; input: string };

export class TextJobTimedOut extends Error {}
export class TextJobTooDeep extends Error {}

let worker: { thread: Worker; ready: Promise<void> } | undefined;
let nextId = 0;
let queue: Promise<unknown> = Promise.resolve();

export function runTextJob<T>(job: TextJob, timeoutMs: number): Promise<T> {
  const run = queue.then(() => runOne<T>(job, timeoutMs));
  queue = run.catch(() => undefined);
  return run;
}

/** The thread, made when missing; `ready` once it has loaded the libraries (not counted against a job's time). */
function thread(): { thread: Worker; ready: Promise<void> } {
  if (worker) return worker;
  // A path the bundler leaves alone: the API is also bundled into Next's catch-all route, and
  // Turbopack would try to bundle the thread's tsx loader (the thread needs the sources as they are).
  const made = new Worker(path.join(/*turbopackIgnore: true*/ process.cwd(), "lib", "processors", "text-work-thread-boot.mjs"), { execArgv: [] });
  // Not a reason to keep the process alive: it waits for jobs only.
  made.unref();
  made.on("error", (error) => console.error(`processors: text thread failed: ${error.message}`));
  const ready = new Promise<void>((resolve, reject) => {
    made.once("message", () => resolve());
    made.once("exit", () => reject(new Error("the text thread ended")));
  });
  ready.catch(() => undefined);
  made.on("exit", () => {
    if (worker?.thread === made) worker = undefined;
  });
  worker = { thread: made, ready };
  return worker;
}

async function runOne<T>(job: TextJob, timeoutMs: number): Promise<T> {
  const id = ++nextId;
  const { thread: current, ready } = thread();
  await ready;
  return new Promise<T>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      current.off("message", onMessage);
      current.off("exit", onExit);
    };
    const onMessage = (message: { id: number; result?: unknown; error?: string; tooDeep?: boolean }) => {
      if (message.id !== id) return;
      done();
      if (message.tooDeep) reject(new TextJobTooDeep(message.error));
      else if (message.error !== undefined) reject(new Error(message.error));
      else resolve(message.result as T);
    };
    const onExit = () => {
      done();
      reject(new Error("the text thread ended"));
    };
    const timer = setTimeout(() => {
      done();
      if (worker?.thread === current) worker = undefined;
      void current.terminate();
      reject(new TextJobTimedOut("timed out"));
    }, timeoutMs);
    current.on("message", onMessage);
    current.once("exit", onExit);
    current.postMessage({ id, job });
  });
}
