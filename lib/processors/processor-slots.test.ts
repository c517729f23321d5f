import { afterEach, describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { processorSlotsInAll, processorSlotsPerProject, withProcessorSlot } from "./processor-slots";

afterEach(() => {
  delete process.env.ARCA_PROCESSOR_TIMEOUT_MS;
});

/** A write held in its slot until `finish` is called. */
function held(projectId: string, started: string[], label: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const result = withProcessorSlot(projectId, async () => {
    started.push(label);
    await done;
    return label;
  });
  return { result, finish };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe("processor slots", () => {
  it("a project waits at its cap; others go on until the cap in all; freed slots go in arrival order to projects with room", async () => {
    expect(processorSlotsPerProject()).toBe(5); // ARCA_PG_POOL_SIZE 20
    expect(processorSlotsInAll()).toBe(10);
    const started: string[] = [];
    const a = Array.from({ length: 7 }, (_, i) => held("a", started, `a${i}`));
    const b = Array.from({ length: 5 }, (_, i) => held("b", started, `b${i}`));
    const c = held("c", started, "c0");
    await tick();
    expect(started).toEqual(["a0", "a1", "a2", "a3", "a4", "b0", "b1", "b2", "b3", "b4"]);
    // A slot of b: a is still at its cap, so c (which came later) takes it.
    b[0].finish();
    await tick();
    expect(started.slice(10)).toEqual(["c0"]);
    a[0].finish();
    await tick();
    expect(started.slice(11)).toEqual(["a5"]);
    for (const write of [...a, ...b, c]) write.finish();
    expect(await Promise.all(a.map((w) => w.result))).toEqual(a.map((_, i) => `a${i}`));
    expect(started).toHaveLength(13);
  });

  it("a write that waits past the processor time limit is 503 with Retry-After and never runs", async () => {
    process.env.ARCA_PROCESSOR_TIMEOUT_MS = "50";
    const started: string[] = [];
    const holding = Array.from({ length: 5 }, (_, i) => held("p", started, `p${i}`));
    const late = held("p", started, "late");
    const error = await late.result.catch((e) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ kind: "serviceUnavailable", message: "Too many writes with processors are running in this project; try again", retryAfter: 5 });
    for (const write of holding) write.finish();
    await Promise.all(holding.map((w) => w.result));
    expect(started).not.toContain("late");
    // Its place in the queue is gone: the next write runs at once.
    const next = held("p", started, "next");
    await tick();
    expect(started.at(-1)).toBe("next");
    next.finish();
    await next.result;
  });
});
