import { describe, expect, it } from "vitest";
import { readApiLoad, sampleApiLoad } from "./api-load";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the API's load as the hook thread reads it", () => {
  it("is near 1 after the event loop ran without a pause, near 0 after it waited", async () => {
    const sampler = sampleApiLoad();
    const load = readApiLoad(sampler.buffer);
    try {
      expect(load()).toBe(0);
      const until = Date.now() + 250;
      while (Date.now() < until); // the loop never waits: the next sample sees it
      await sleep(20);
      expect(load()).toBeGreaterThanOrEqual(0.8);
      await sleep(350);
      expect(load()).toBeLessThan(0.2);
    } finally {
      sampler.stop();
    }
  });
});
