import { describe, expect, it } from "vitest";
import { buildProcessorPlan, RECURSION_MESSAGE } from "./processor-plan";
import { parseProcessOnly } from "./process-only";

const schema = (properties: Record<string, unknown>) => ({ type: "object", properties });
const md5Of = (property: string) => [{ name: "md5", in: { text: { property } } }];

describe("buildProcessorPlan", () => {
  it("orders properties by dependency, schema order among independent ones", () => {
    const plan = buildProcessorPlan(
      schema({
        c: { type: "string", processors: md5Of("b") },
        a: { type: "string", processors: [{ name: "random" }] },
        b: { type: "string", processors: md5Of("a") },
        n: { type: "object", properties: { deep: { type: "string", processors: md5Of("c") } } },
      }),
    );
    expect(plan.map((p) => p.key)).toEqual(["a", "b", "c", "n.deep"]);
    expect(plan[1].inputs).toEqual([["a"]]);
  });

  it("reads nested context arguments as inputs", () => {
    const [plan] = buildProcessorPlan(
      schema({ t: { type: "string", processors: [{ name: "template", in: { template_string: { value: "{{a.b}}" }, context: { a: { b: { property: "x.y" } }, c: { value: 1 } } } }] } }),
    );
    expect(plan.inputs).toEqual([["x", "y"]]);
  });

  it("refuses cycles through any number of properties, and a dependency on a parent path counts", () => {
    expect(() => buildProcessorPlan(schema({ a: { processors: md5Of("b") }, b: { processors: md5Of("a") } }))).toThrow(RECURSION_MESSAGE);
    expect(() =>
      buildProcessorPlan(schema({ a: { processors: md5Of("b") }, b: { processors: md5Of("c") }, c: { type: "object", properties: { d: { processors: md5Of("a") } } } })),
    ).toThrow(RECURSION_MESSAGE);
    // Reading one's own value explicitly is the default source, not a cycle.
    expect(buildProcessorPlan(schema({ a: { processors: md5Of("a") } }))).toHaveLength(1);
  });

  it("refuses an input the schema closes off (the processor would never get input); open or unclear schemas pass", () => {
    const closed = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ ...schema(properties), additionalProperties: false, ...extra });
    const errorsOf = (value: Record<string, unknown>) => {
      try {
        buildProcessorPlan(value, { saving: true });
        return [];
      } catch (error) {
        return (error as { errors: unknown[] }).errors;
      }
    };
    expect(errorsOf(closed({ d: { type: "string", processors: md5Of("nope") } }))).toEqual([{ property: "d", message: "reads nope, which the schema does not allow in a document" }]);
    expect(errorsOf(closed({ d: { type: "string", processors: md5Of("n.x") }, n: { type: "object", properties: { y: {} }, additionalProperties: false } }))).toEqual([
      { property: "d", message: "reads n.x, which the schema does not allow in a document" },
    ]);
    expect(errorsOf(closed({ d: { type: "string", processors: md5Of("t") }, t: { type: "string" } }))).toEqual([]);
    expect(errorsOf(closed({ d: { type: "string", processors: md5Of("_id") } }))).toEqual([]);
    // Listed properties close an object unless it says otherwise (Arca's default, CONTRACT §4).
    expect(errorsOf(schema({ d: { type: "string", processors: md5Of("nope") } }))).toEqual([{ property: "d", message: "reads nope, which the schema does not allow in a document" }]);
    expect(errorsOf({ ...schema({ d: { type: "string", processors: md5Of("nope") } }), additionalProperties: true })).toEqual([]);
    expect(errorsOf({ type: "object", additionalProperties: true, properties: { d: { type: "string", processors: md5Of("o.x") }, o: { type: "string" } } })).toEqual([
      { property: "d", message: "reads o.x, which the schema does not allow in a document" },
    ]);
    expect(errorsOf(closed({ d: { type: "string", processors: md5Of("p1") } }, { patternProperties: { "^p": {} } }))).toEqual([]);
    expect(errorsOf(closed({ d: { type: "string", processors: md5Of("f.name") }, f: { type: "file" } }))).toEqual([]);
    // A schema saved before this check still runs: writes build its plan without it.
    expect(buildProcessorPlan(closed({ d: { type: "string", processors: md5Of("nope") } }))).toHaveLength(1);
  });

  it("refuses prototype paths in arguments", () => {
    expect(() => buildProcessorPlan(schema({ a: { processors: md5Of("__proto__.x") } }))).toThrow("Validation error");
  });
});

describe("parseProcessOnly", () => {
  it("reads the query first, then the header; trims and drops empty names", () => {
    expect(parseProcessOnly("a, b,,c", "x")).toEqual(["a", "b", "c"]);
    expect(parseProcessOnly(undefined, "x")).toEqual(["x"]);
    expect(parseProcessOnly(undefined, undefined)).toBeUndefined();
    expect(parseProcessOnly("", undefined)).toEqual([]);
  });
});
