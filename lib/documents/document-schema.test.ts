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

  it("knows embeds and immutables", () => {
    expect(compiled.embeds).toEqual([{ path: ["ref"], collection: "others", field: "_id" }]);
    expect(checkImmutable({ key: "a" }, { key: "b" }, compiled)).toHaveLength(1);
    expect(checkImmutable({}, { key: "b" }, compiled)).toEqual([]);
    expect(compiled.validate({ name: "n", ref: "k" })).toEqual([]);
  });

  it("an invalid schema is a 422 naming schema", () => {
    expect(() => compileSchema({ type: 12 })).toThrow(expect.objectContaining({ kind: "validation" }));
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
});
