import { describe, expect, it } from "vitest";
import { mapBounded } from "./processor-limits";

describe("mapBounded", () => {
  it("lets the event loop turn during long work that awaits nothing slow (a bulk update without processors)", async () => {
    let turned = false;
    setImmediate(() => (turned = true));
    const seenBefore: boolean[] = [];
    // 60 items of ~1 ms of synchronous work each, resolved in microtasks only.
    const results = await mapBounded(Array.from({ length: 60 }, (_, i) => i), 4, async (item) => {
      const until = performance.now() + 1;
      while (performance.now() < until);
      seenBefore.push(turned);
      return item * 2;
    });
    expect(results).toEqual(Array.from({ length: 60 }, (_, i) => i * 2));
    // The other callback ran while the items were still being worked through, not after all of them.
    expect(seenBefore.at(-1)).toBe(true);
    expect(seenBefore[0]).toBe(false);
  });
});
