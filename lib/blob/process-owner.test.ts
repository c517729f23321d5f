import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { isDeadOwner, processOwner } from "./process-owner";

describe("process owners", () => {
  const tag = processOwner().split("-")[0];

  it("this process and a live one of this host are alive", () => {
    expect(isDeadOwner(processOwner())).toBe(false);
    expect(isDeadOwner(`${tag}-${process.ppid}`)).toBe(false);
  });

  it("a process of this host that exited is dead", () => {
    expect(isDeadOwner(`${tag}-${spawnSync("true").pid}`)).toBe(true);
  });

  it("a pid now held by a process started at another time (a recycled pid, a restarted container's pid 1) is dead", () => {
    const [, , started] = processOwner().split("-");
    if (started === undefined) return; // no /proc: the pid alone is all there is
    expect(isDeadOwner(`${tag}-${process.pid}-${Number(started) - 1}`)).toBe(true);
    expect(isDeadOwner(`${tag}-${process.ppid}-1`)).toBe(true);
  });

  it("another host's owner and unreadable tags are never judged dead", () => {
    const other = tag === "ffffffff" ? "eeeeeeee" : "ffffffff";
    expect(isDeadOwner(`${other}-${spawnSync("true").pid}`)).toBe(false);
    expect(isDeadOwner("not an owner")).toBe(false);
    expect(isDeadOwner(null)).toBe(false);
  });
});
