import { describe, expect, it } from "vitest";
import { idAlias } from "./hook-history";

describe("idAlias: _id in a history filter means id", () => {
  it("renames _id at every level of $and/$or/$nor, and keeps both when both are named", () => {
    expect(idAlias({ _id: "a", status: "error" })).toEqual({ status: "error", id: "a" });
    expect(idAlias({ $or: [{ _id: { $in: ["a"] } }, { hook_id: "h" }], $nor: [{ _id: "b" }] })).toEqual({ $or: [{ id: { $in: ["a"] } }, { hook_id: "h" }], $nor: [{ id: "b" }] });
    expect(idAlias({ _id: "a", id: "b" })).toEqual({ $and: [{ id: "b" }, { id: "a" }] });
    expect(idAlias({ document_id: { _id: 1 } })).toEqual({ document_id: { _id: 1 } });
  });
});
