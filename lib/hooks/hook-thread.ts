/**
 * The entry of the hook thread (start-hook-thread.ts): the hooks' dispatcher and delivery workers
 * on their own event loop, at a lower CPU priority than the API's. Everything it knows is in
 * PostgreSQL; it talks to the rest of the process only to stop (and reads the API's load).
 */
import os from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { connectDatabase, disconnectDatabase, runAsBackground } from "../db/pool";
import { closeOutboundDispatchers } from "../net/outbound-guard";
import { stopOutboxListener } from "../outbox/outbox-listener";
import { readApiLoad } from "./api-load";
import { startHookWorkers } from "./hook-workers";

const { databaseUrl, nice, apiLoad } = workerData as { databaseUrl: string; nice: number; apiLoad: SharedArrayBuffer };

// On Linux a thread's nice value is its own (setpriority on the calling thread): under a load
// that takes every core, the API's requests come first and deliveries catch up when it eases.
// Elsewhere it may lower the whole process, or be refused; either is harmless.
try {
  os.setPriority(0, Math.min(19, os.getPriority(0) + nice));
} catch {}

connectDatabase(databaseUrl);
const hooks = runAsBackground(() => startHookWorkers({ apiLoad: readApiLoad(apiLoad) }));

parentPort!.on("message", (message) => {
  if (message !== "stop") return;
  void (async () => {
    try {
      await hooks.stop();
      await Promise.all([stopOutboxListener(), closeOutboundDispatchers()]);
      await disconnectDatabase();
    } catch (error) {
      console.error(`hooks: stopping the thread: ${(error as Error).message}`);
    } finally {
      parentPort!.postMessage("stopped");
      parentPort!.close();
    }
  })();
});
