import { describe, expect, it } from "vitest";
import { PROCESSOR_KINDS } from "../client/processor-catalog";
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
