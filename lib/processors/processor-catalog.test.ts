import { describe, expect, it } from "vitest";
import { newProcessorStep, PROCESSOR_KINDS } from "../client/processor-catalog";
import { buildProcessorPlan } from "./processor-plan";
import { processorKinds } from "./processor-registry";

// The dashboard's description of the kinds (lib/client) must match what the server accepts.
describe("processor catalog", () => {
  it("has the registry's kinds, arguments, required arguments and sources", () => {
    expect(PROCESSOR_KINDS.map((k) => k.name).sort()).toEqual(Object.keys(processorKinds).sort());
    for (const kind of PROCESSOR_KINDS) {
      const server = processorKinds[kind.name];
      expect(kind.args.map((a) => a.name).sort(), kind.name).toEqual([...server.args].sort());
      expect([...kind.required].sort(), kind.name).toEqual([...(server.required ?? [])].sort());
      expect(kind.source, kind.name).toBe(server.source);
    }
  });
});

describe("a new step in the dashboard's editor", () => {
  it.each(PROCESSOR_KINDS.map((kind) => [kind.name, kind] as const))("%s: starts with every required argument given, so the form has an input for each", (_name, kind) => {
    const step = newProcessorStep(kind, ["photo"]);
    expect(Object.keys(step.in ?? {}).sort()).toEqual([...kind.required, ...(kind.prefilled ?? [])].sort());
    // What the server says of it: never "is required" (the form once offered no input for it).
    let problem = "";
    try {
      buildProcessorPlan({ type: "object", properties: { photo: { type: "file" }, out: { type: "string", processors: [step] } } });
    } catch (error) {
      problem = JSON.stringify((error as { errors?: unknown }).errors ?? (error as Error).message);
    }
    expect(problem).not.toMatch(/required/);
  });
});
