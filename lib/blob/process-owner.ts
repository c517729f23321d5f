import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";

/**
 * Who owns a piece of work in flight (a staged upload's temp file, a pending blob marker): this
 * host and process, as `<host tag>-<pid>[-<start>]`. After a crash the next process can tell a
 * dead owner's leftovers from a live upload of another process on the same data dir, without
 * waiting for an age threshold. The host tag (a hash of the host name) keeps a process of
 * another machine sharing the directory from being judged by this machine's process table; the
 * kernel's start time of the process (Linux) keeps a recycled pid from passing for the owner,
 * e.g. a container restarted with the server as pid 1 again.
 */
const HOST_TAG = createHash("sha256").update(os.hostname()).digest("hex").slice(0, 8);

export const OWNER_PATTERN = "[0-9a-f]{8}-[0-9]+(?:-[0-9]+)?";

/**
 * Field 22 of /proc/<pid>/stat (start time in clock ticks since boot), undefined off Linux;
 * "zombie" for a process that exited but was not reaped yet.
 */
function startTime(pid: number | "self"): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[0] === "Z" ? "zombie" : fields[19];
  } catch {
    return undefined;
  }
}

const OWN_START = startTime("self");

export function processOwner(): string {
  return OWN_START ? `${HOST_TAG}-${process.pid}-${OWN_START}` : `${HOST_TAG}-${process.pid}`;
}

/**
 * True only when the owner is certainly gone: a process of this host that no longer exists, or
 * whose pid now belongs to a process started at another time. Another host's owner, or an
 * unreadable tag, is never dead (its work is left to the age rules).
 */
export function isDeadOwner(owner: string | null | undefined): boolean {
  const match = owner ? /^([0-9a-f]{8})-([0-9]+)(?:-([0-9]+))?$/.exec(owner) : null;
  if (!match || match[1] !== HOST_TAG) return false;
  const pid = Number(match[2]);
  const started = match[3];
  if (pid === process.pid) return started !== undefined && OWN_START !== undefined && started !== OWN_START;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
  const now = startTime(pid);
  return now === "zombie" || (now !== undefined && started !== undefined && now !== started);
}
