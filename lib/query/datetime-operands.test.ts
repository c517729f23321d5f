import { describe, expect, it } from "vitest";
import { withDatetimeOperands } from "./datetime-operands";

const iso = (date: Date) => date.toISOString();

describe("withDatetimeOperands", () => {
  it("puts comparisons at datetime paths in the stored form, at any depth of $and/$or, in lists and under $not", () => {
    const filter = {
      when: { $gt: "2024-03-01T10:00:00+01:00", $lte: "2024-03-02" },
      $or: [{ "items.0.at": "2024-03-01T10:00:00Z" }, { "items.at": { $in: ["2024-03-01 10:00", 5] } }],
      $nor: [{ when: { $not: { $lt: "2024-01-01T00:00:00.5Z" } } }],
      other: "2024-03-01T10:00:00Z",
    };
    expect(withDatetimeOperands(filter, [["when"], ["items", "*", "at"]], iso)).toEqual({
      when: { $gt: "2024-03-01T09:00:00.000Z", $lte: "2024-03-02T00:00:00.000Z" },
      $or: [{ "items.0.at": "2024-03-01T10:00:00.000Z" }, { "items.at": { $in: ["2024-03-01T10:00:00.000Z", 5] } }],
      $nor: [{ when: { $not: { $lt: "2024-01-01T00:00:00.500Z" } } }],
      other: "2024-03-01T10:00:00Z",
    });
  });

  it("reaches into $elemMatch: operators on an array of datetimes, a filter over an array of objects, and $all of them", () => {
    const paths = [["list", "*"], ["objs", "*", "t"]];
    const filter = {
      list: { $elemMatch: { $gte: "2024-06-01T00:00:00+02:00" } },
      objs: { $elemMatch: { t: { $gte: "2024-03-01T11:00:00+01:00" }, n: "2024-03-01" } },
      $and: [{ objs: { $all: [{ $elemMatch: { t: "2024-03-02T01:00:00+01:00" } }] } }, { list: ["2024-03-01T11:00:00+01:00"] }],
    };
    expect(withDatetimeOperands(filter, paths, iso)).toEqual({
      list: { $elemMatch: { $gte: "2024-05-31T22:00:00.000Z" } },
      objs: { $elemMatch: { t: { $gte: "2024-03-01T10:00:00.000Z" }, n: "2024-03-01" } },
      $and: [{ objs: { $all: [{ $elemMatch: { t: "2024-03-02T00:00:00.000Z" } }] } }, { list: ["2024-03-01T10:00:00.000Z"] }],
    });
  });

  it("leaves what is no datetime text alone: other strings, regexes, $exists, no datetime paths", () => {
    const filter = { when: { $regex: "^2024", $exists: true, $ne: "soon" } };
    expect(withDatetimeOperands(filter, [["when"]], iso)).toEqual(filter);
    expect(withDatetimeOperands({ when: "2024-13-45" }, [["when"]], iso)).toEqual({ when: "2024-13-45" });
    const untouched = { when: "2024-03-01T10:00:00Z" };
    expect(withDatetimeOperands(untouched, [], iso)).toBe(untouched);
  });
});
