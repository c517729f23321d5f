import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { HASH_CONCURRENCY, HASH_QUEUE, withHashSlot } from "./hash-slots";

describe("hash slots", () => {
  it("run at most HASH_CONCURRENCY at once, queue HASH_QUEUE more, refuse the rest with 503 at once", async () => {
    let running = 0;
    let peak = 0;
    const gates: (() => void)[] = [];
    const work = () =>
      withHashSlot(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running--;
        return "done";
      });
    const accepted = Array.from({ length: HASH_CONCURRENCY + HASH_QUEUE }, work);
    const refused = await work().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).status).toBe(503);
    expect((refused as AppError).retryAfter).toBeGreaterThanOrEqual(1);
    // Release the gates as work arrives, until every accepted one finished.
    const all = Promise.all(accepted);
    let finished = false;
    void all.then(() => (finished = true));
    while (!finished) {
      gates.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await all).toEqual(Array(accepted.length).fill("done"));
    expect(peak).toBe(HASH_CONCURRENCY);
    // The queue is empty again: new work runs.
    const again = withHashSlot(async () => "again");
    expect(await again).toBe("again");
  });
});
