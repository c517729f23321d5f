import { createHash } from "node:crypto";
import os from "node:os";

/**
 * Who owns a piece of work in flight (a staged upload's temp file, a pending blob marker): this
 * host and process, as `<host tag>-<pid>`. After a crash the next process can tell a dead
 * owner's leftovers from a live upload of another process on the same data dir, without
 * waiting for an age threshold. The host tag (a hash of the host name) keeps a process of
 * another machine sharing the directory from being judged by this machine's process table.
 */
const HOST_TAG = createHash("sha256").update(os.hostname()).digest("hex").slice(0, 8);

export const OWNER_PATTERN = "[0-9a-f]{8}-[0-9]+";

export function processOwner(): string {
  return `${HOST_TAG}-${process.pid}`;
}

/**
 * True only when the owner is certainly gone: a process of this host that no longer exists.
 * Another host's owner, or an unreadable tag, is never dead (its work is left to the age rules).
 * A recycled pid reads as alive, which only delays the clean-up.
 */
export function isDeadOwner(owner: string | null | undefined): boolean {
  const match = owner ? /^([0-9a-f]{8})-([0-9]+)$/.exec(owner) : null;
  if (!match || match[1] !== HOST_TAG) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
