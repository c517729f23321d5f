import type { ChildProcess } from "node:child_process";
import fs from "node:fs";

/**
 * Stops a spawned server the way an operator would: SIGTERM to each of its processes (npx does
 * not forward signals), except PostgreSQL, which the app stops itself; whatever is left of the
 * tree after 20 s gets SIGKILL. Only this tree is touched, by process id.
 */
export async function stopProcessTree(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (!child.pid) return;
  const tree = processTree(child.pid);
  for (const pid of tree) if (command(pid) !== "postgres") signal(pid, "SIGTERM");
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && tree.some(isAlive)) await new Promise((resolve) => setTimeout(resolve, 100));
  for (const pid of tree) if (isAlive(pid)) signal(pid, "SIGKILL");
  if (child.exitCode === null && child.signalCode === null) signal(child.pid, "SIGKILL");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000))]);
}

/** The process and all its descendants (Linux /proc), parents first. */
function processTree(root: number): number[] {
  const out: number[] = [];
  const visit = (pid: number) => {
    out.push(pid);
    let children: string[] = [];
    try {
      for (const task of fs.readdirSync(`/proc/${pid}/task`))
        children = children.concat(fs.readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean));
    } catch {
      // Gone already.
    }
    for (const c of children) visit(Number(c));
  };
  visit(root);
  return out;
}

function command(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

function isAlive(pid: number): boolean {
  try {
    // A zombie still "exists": read its state.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}
