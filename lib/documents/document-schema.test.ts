import { describe, expect, it } from "vitest";
import { checkImmutable, compileSchema, normalizeDatetimes } from "./document-schema";

describe("compileSchema (Deform's differences from draft 4)", () => {
  const compiled = compileSchema({
    properties: {
      name: { type: "string", required: true, position: 1 },
      at: { type: "datetime" },
      list: { type: "array", items: { type: "object", properties: { when: { type: "datetime" } } } },
      open: { type: "object", additionalProperties: true, properties: { x: { type: "number" } } },
      ref: { type: "embed", collection: "others", field: "_id" },
      key: { type: "string", immutable: true },
    },
  });

  it("additionalProperties false by default, required: true, _id always allowed", () => {
    expect(compiled.validate({ _id: "a", name: "n" })).toEqual([]);
    expect(compiled.validate({ extra: 1 }).map((e) => e.property).sort()).toEqual(["extra", "name"]);
    expect(compiled.validate({ name: "n", open: { y: 1 } })).toEqual([]);
    expect(compiled.validate({ name: "n", list: [{ when: "x", other: 1 }] }).map((e) => e.property).sort()).toEqual(["list.0.other", "list.0.when"]);
  });

  it("datetimes are normalized to UTC, in arrays too", () => {
    const doc = { name: "n", at: "2020-01-01T00:00:00-05:00", list: [{ when: "2020-06-01T12:00:00Z" }] };
    normalizeDatetimes(doc, compiled);
    expect(doc).toEqual({ name: "n", at: "2020-01-01T05:00:00.000Z", list: [{ when: "2020-06-01T12:00:00.000Z" }] });
  });

  it("a datetime must name a day that exists (Date.parse rolls 2024-02-30 into March)", () => {
    for (const at of ["2024-02-30T10:00:00Z", "2023-02-29", "2024-04-31T00:00:00+02:00", "2024-13-01", "2024-00-10", "2024-01-00T00:00:00Z"])
      expect(compiled.validate({ name: "n", at }).map((e) => e.property), at).toEqual(["at"]);
    for (const at of ["2024-02-29T10:00:00Z", "2024-12-31", "2024-04-30T23:59:59.5+02:00"]) expect(compiled.validate({ name: "n", at }), at).toEqual([]);
  });

  it("a datetime's UTC instant must fall in years 0000-9999 (stored with four digits, so it can be written back)", () => {
    for (const at of ["9999-12-31T23:00:00-02:00", "0000-01-01T00:00:00+02:00"]) expect(compiled.validate({ name: "n", at }).map((e) => e.property), at).toEqual(["at"]);
    for (const at of ["9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "0000-02-29", "9999-12-31T23:00:00+02:00"]) {
      expect(compiled.validate({ name: "n", at }), at).toEqual([]);
      const doc = { name: "n", at };
      normalizeDatetimes(doc, compiled);
      expect(doc.at, at).toMatch(/^\d{4}-/);
      expect(compiled.validate(doc), at).toEqual([]);
    }
  });

  it("knows embeds and immutables", () => {
    expect(compiled.embeds).toEqual([{ path: ["ref"], collection: "others", field: "_id" }]);
    expect(checkImmutable({ key: "a" }, { key: "b" }, compiled)).toHaveLength(1);
    expect(checkImmutable({}, { key: "b" }, compiled)).toEqual([]);
    expect(compiled.validate({ name: "n", ref: "k" })).toEqual([]);
  });

  it("multipleOf counts decimal quotients (19.99 is a multiple of 0.01), as draft 4 means it", () => {
    const prices = compileSchema({ properties: { p: { type: "number", multipleOf: 0.01 }, q: { type: "number", multipleOf: 0.1 } } });
    for (const p of [19.99, 4.35, 0.07, 1, 0]) expect(prices.validate({ p }), `${p}`).toEqual([]);
    for (const q of [0.3, 0.7, 2.2]) expect(prices.validate({ q }), `${q}`).toEqual([]);
    expect(prices.validate({ p: 0.005 }).map((e) => e.property)).toEqual(["p"]);
    expect(prices.validate({ q: 0.35 }).map((e) => e.property)).toEqual(["q"]);
  });

  it("an invalid schema is a 422 naming schema", () => {
    expect(() => compileSchema({ type: 12 })).toThrow(expect.objectContaining({ kind: "validation" }));
  });

  it("a $ref loop that reads no deeper is a 422 at save, or for the document that reaches it (never a stack overflow's 500)", () => {
    expect(() => compileSchema({ definitions: { a: { $ref: "#" } }, $ref: "#/definitions/a" })).toThrow(expect.objectContaining({ kind: "validation" }));
    const deeper = compileSchema({ properties: { a: { anyOf: [{ $ref: "#/properties/a" }] }, b: { type: "string" } } });
    expect(deeper.validate({ b: "x" })).toEqual([]);
    expect(deeper.validate({ a: 1 })).toEqual([{ property: null, message: expect.stringContaining("refers to itself without end") }]);
  });

  it("$refs that expand past 5,000 subschemas are a 422 before the expansion runs away (each definition naming the next twice doubles it)", () => {
    const chain = (n: number) => {
      const definitions: Record<string, unknown> = { [`d${n}`]: { type: "string" } };
      for (let i = 0; i < n; i++) definitions[`d${i}`] = { type: "object", properties: { a: { $ref: `#/definitions/d${i + 1}` }, b: { $ref: `#/definitions/d${i + 1}` } } };
      return { type: "object", definitions, properties: { s: { $ref: "#/definitions/d0" } } };
    };
    // Refused as it expands: 2^30 copies would never finish (the test's timeout would end it).
    let error: unknown;
    try {
      compileSchema(chain(30), { checkArca: true });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ kind: "validation", errors: [{ property: "schema", message: expect.stringContaining("its $refs expand to more than 5000 subschemas") }] });
    const small = compileSchema(chain(5), { checkArca: true });
    expect(small.validate({ s: { a: { a: { a: { a: { a: "x" } } } } } })).toEqual([]);
  });

  it("an $async schema is a 422: ajv would answer a promise (every document accepted, a failing one an unhandled rejection)", () => {
    expect(() => compileSchema({ $async: true, type: "object", properties: { n: { type: "number" } } })).toThrow(expect.objectContaining({ kind: "validation" }));
  });
});

describe("Arca's types in a list of types, immutables inside arrays", () => {
  const compiled = compileSchema({
    properties: {
      joined: { type: ["datetime", "null"] },
      ref: { type: ["embed", "null"], collection: "others" },
      items: { type: "array", items: { type: "object", properties: { k: { type: "string", immutable: true } } } },
    },
  });

  it("takes [\"datetime\", \"null\"] (the form _users.date_joined shows) and normalizes its strings", () => {
    expect(compiled.validate({ joined: null })).toEqual([]);
    expect(compiled.validate({ joined: "not a date" }).map((e) => e.property)).toEqual(["joined"]);
    const doc: Record<string, unknown> = { joined: "2026-01-02T03:04:05+02:00" };
    normalizeDatetimes(doc, compiled);
    expect(doc.joined).toBe("2026-01-02T01:04:05.000Z");
    expect(compiled.embeds).toEqual([{ path: ["ref"], collection: "others", field: "_id" }]);
    expect(compiled.validate({ ref: null })).toEqual([]);
  });

  it("holds each array element's immutable property by its index", () => {
    const before = { items: [{ k: "a" }, { k: "b" }] };
    expect(checkImmutable(before, { items: [{ k: "a" }, { k: "b" }, { k: "c" }] }, compiled)).toEqual([]);
    expect(checkImmutable(before, { items: [{ k: "a" }, { k: "x" }] }, compiled)).toEqual([{ property: "items.1.k", message: "is immutable and cannot be changed" }]);
  });

  it("Arca's keywords apply through a $ref to definitions as they do in place", () => {
    const address = { type: "object", properties: { city: { type: "string", required: true }, since: { type: "datetime" }, code: { type: "string", immutable: true } } };
    const viaRef = compileSchema({ type: "object", definitions: { address }, properties: { home: { $ref: "#/definitions/address" }, work: { $ref: "#/definitions/address" } } }, { checkArca: true });
    expect(viaRef.validate({ home: { city: "c" } })).toEqual([]);
    expect(viaRef.validate({ home: {} }).map((e) => e.property)).toEqual(["home.city"]);
    expect(viaRef.validate({ home: { city: "c", extra: 1 } }).map((e) => e.property)).toEqual(["home.extra"]);
    expect(viaRef.datetimes).toEqual([["home", "since"], ["work", "since"]]);
    const doc = { home: { city: "c", since: "2020-01-01T00:00:00+01:00" } };
    normalizeDatetimes(doc, viaRef);
    expect(doc.home.since).toBe("2019-12-31T23:00:00.000Z");
    expect(checkImmutable({ work: { code: "a" } }, { work: { code: "b" } }, viaRef)).toHaveLength(1);
  });

  it("a recursive $ref works for validation; Arca's keywords there, under patternProperties or processors in definitions are refused at save", () => {
    const tree = { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/definitions/node" } } } };
    const recursive = compileSchema({ type: "object", definitions: { node: tree }, properties: { root: { $ref: "#/definitions/node" } } }, { checkArca: true });
    expect(recursive.validate({ root: { name: "a", children: [{ name: "b", children: [] }] } })).toEqual([]);
    expect(recursive.validate({ root: { name: "a", children: [{ name: 1 }] } })).toHaveLength(1);
    const refused = (schema: Record<string, unknown>) => {
      try {
        compileSchema(schema, { checkArca: true });
      } catch (error) {
        return (error as { errors?: { property: string }[] }).errors?.map((e) => e.property);
      }
      return undefined;
    };
    const datedTree = { type: "object", properties: { at: { type: "datetime" }, children: { type: "array", items: { $ref: "#/definitions/node" } } } };
    expect(refused({ type: "object", definitions: { node: datedTree }, properties: { root: { $ref: "#/definitions/node" } } })).toEqual(["schema.definitions.node"]);
    expect(refused({ type: "object", properties: { m: { type: "object", patternProperties: { "^x": { type: "datetime" } } } } })).toEqual(["schema.m.patternProperties.^x"]);
    expect(refused({ type: "object", definitions: { h: { type: "string", processors: [{ name: "md5", in: { text: { property: "a" } } }] } }, properties: { a: { type: "string" } } })).toEqual(["schema.definitions.h"]);
    // Plain types under patternProperties translate (required: true too), and stored schemas compile.
    const patterned = compileSchema({ type: "object", patternProperties: { "^o_": { type: "object", properties: { k: { type: "number", required: true } } } }, additionalProperties: false });
    expect(patterned.validate({ o_1: { k: 1 } })).toEqual([]);
    expect(patterned.validate({ o_1: {} })).toHaveLength(1);
  });

  it("_id is allowed at the top under additionalProperties: false without properties", () => {
    expect(compileSchema({ type: "object", additionalProperties: false }).validate({ _id: "x" })).toEqual([]);
    expect(compileSchema({ type: "object", additionalProperties: false }).validate({ _id: "x", y: 1 }).map((e) => e.property)).toEqual(["y"]);
    expect(compileSchema({ type: "object", patternProperties: { "^x": {} }, additionalProperties: false }).validate({ _id: "x", x1: 1 })).toEqual([]);
  });
});

describe("schema ids stay with their schema (ajv shared by all projects)", () => {
  const secret = { id: "http://ids.example/secret", type: "object", properties: { pin: { type: "string", pattern: "^SECRET$" } } };

  it("a root draft-4 id compiles again and again (it was 422 'already exists' from the second compile on)", () => {
    for (let i = 0; i < 3; i++) expect(compileSchema(structuredClone(secret), { checkArca: true }).validate({ pin: "SECRET" })).toEqual([]);
  });

  it("another schema cannot $ref what an earlier one declared, at its root or nested", () => {
    compileSchema(structuredClone(secret), { checkArca: true });
    compileSchema({ definitions: { inner: { id: "http://ids.example/nested", type: "string", pattern: "^NESTED$" } }, properties: {} });
    for (const ref of ["http://ids.example/secret", "http://ids.example/nested"])
      expect(() => compileSchema({ properties: { a: { $ref: ref } } }, { checkArca: true }), ref).toThrow(expect.objectContaining({ errors: [expect.objectContaining({ property: "schema" })] }));
  });

  it("a #/definitions/ ref under a nested id names that subschema's definitions (draft 4's base change)", () => {
    const nested = compileSchema({
      type: "object",
      definitions: { x: { type: "string" } },
      properties: { a: { id: "http://nested.example/", type: "object", definitions: { x: { type: "integer" } }, properties: { b: { $ref: "#/definitions/x" } } }, c: { $ref: "#/definitions/x" } },
    }, { checkArca: true });
    expect(nested.validate({ a: { b: 5 }, c: "s" })).toEqual([]);
    expect(nested.validate({ a: { b: "s" }, c: 5 }).map((e) => e.property).sort()).toEqual(["a.b", "c"]);
  });

  it("ids still resolve within their own schema", () => {
    const own = compileSchema({ definitions: { code: { id: "#code", type: "string", pattern: "^C" } }, properties: { a: { $ref: "#code" } } });
    expect(own.validate({ a: "C1" })).toEqual([]);
    expect(own.validate({ a: "x" }).map((e) => e.property)).toEqual(["a"]);
  });
});

describe("refused at save: what no document could ever satisfy, and Arca's keywords with wrong values", () => {
  const errorsOf = (schema: Record<string, unknown>) => {
    try {
      compileSchema(schema, { checkArca: true });
      return [];
    } catch (error) {
      return (error as { errors: { property: string }[] }).errors.map((e) => e.property);
    }
  };

  it("a root type that does not allow object", () => {
    expect(errorsOf({ type: "string" })).toEqual(["schema.type"]);
    expect(errorsOf({ type: ["array", "null"] })).toEqual(["schema.type"]);
    expect(errorsOf({ type: "object" })).toEqual([]);
    expect(errorsOf({ type: ["object", "null"] })).toEqual([]);
    // Stored schemas compile as before (a write is judged by what its schema was saved with).
    expect(compileSchema({ type: "string" }).validate({})).toHaveLength(1);
  });

  it("immutable that is not a boolean, position that is not a number", () => {
    expect(errorsOf({ properties: { a: { type: "string", immutable: "yes" }, b: { type: "string", position: "x" }, c: { properties: { d: { position: null } } } } })).toEqual([
      "schema.properties.a.immutable",
      "schema.properties.b.position",
      "schema.properties.c.properties.d.position",
    ]);
    expect(errorsOf({ properties: { a: { type: "string", immutable: false, position: 2.5 } } })).toEqual([]);
  });
});
