import { describe, expect, it } from "vitest";
import { ident, join, raw, sql } from "./sql";

describe("sql fragments", () => {
  it("numbers parameters across nested fragments", () => {
    const where = join([sql`a = ${1}`, sql`b = ${"x"}`], " AND ");
    const q = sql`SELECT * FROM t WHERE ${where} LIMIT ${10}`.toQuery();
    expect(q.text).toBe("SELECT * FROM t WHERE a = $1 AND b = $2 LIMIT $3");
    expect(q.values).toEqual([1, "x", 10]);
  });

  it("keeps user text out of the statement", () => {
    const q = sql`SELECT ${"'; DROP TABLE t; --"}`.toQuery();
    expect(q.text).toBe("SELECT $1");
  });

  it("quotes identifiers and starts numbering where asked", () => {
    expect(ident('we"ird').toQuery().text).toBe('"we""ird"');
    expect(sql`${raw("x")} = ${5}`.toQuery(3).text).toBe("x = $3");
    expect(join([]).toQuery().text).toBe("");
  });
});
