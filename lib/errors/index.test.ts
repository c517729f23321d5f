import { describe, expect, it } from "vitest";
import { fromDatabaseError } from "./index";

describe("fromDatabaseError", () => {
  it("a database that is gone or going is 503 with Retry-After, never a 500", () => {
    const lost = [
      Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }),
      Object.assign(new Error("sorry, too many clients already"), { code: "53300" }),
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:54329"), { code: "ECONNREFUSED" }),
      new Error("Connection terminated unexpectedly"),
      new Error("timeout exceeded when trying to connect"),
    ];
    for (const error of lost) expect(fromDatabaseError(error), error.message).toMatchObject({ status: 503, retryAfter: 5 });
  });

  it("leaves a client that went away (ECONNRESET) and unknown errors to the caller", () => {
    expect(fromDatabaseError(Object.assign(new Error("aborted"), { code: "ECONNRESET" }))).toBeUndefined();
    expect(fromDatabaseError(new Error("something else"))).toBeUndefined();
  });
});
