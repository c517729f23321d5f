import { describe, expect, it } from "vitest";
import { visibleInSnapshot } from "./outbox-events";

describe("visibleInSnapshot", () => {
  it("answers as pg_visible_in_snapshot: below xmin yes, from xmax on no, in between unless still running", () => {
    const snapshot = "100:110:102,105";
    expect(["99", "100", "101", "102", "105", "109", "110", "111"].map((txid) => visibleInSnapshot(txid, snapshot))).toEqual([true, true, true, false, false, true, false, false]); // as PostgreSQL answers
    expect(visibleInSnapshot("100", "100:100:")).toBe(false);
    expect(visibleInSnapshot("99", "100:100:")).toBe(true);
    expect(visibleInSnapshot("18446744073709551000", "18446744073709551001:18446744073709551002:")).toBe(true);
  });
});
