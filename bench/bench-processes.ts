import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Benchmarks run every server they measure as a child process, so the load generator never
 * shares their event loop. A child prints `listening <port>` once it serves.
 */
export async function startChild(script: string, args: string[], children: ChildProcess[], options: { profile?: boolean; env?: Record<string, string> } = {}): Promise<string> {
  // BENCH_PROFILE=1 writes a CPU profile of the Arca server (open it in Chrome DevTools).
  const profile = options.profile && process.env.BENCH_PROFILE ? ["--cpu-prof", "--cpu-prof-dir=.bench-data/profiles"] : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", script, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, NODE_ENV: "production", ...options.env },
  });
  children.push(child);
  let output = "";
  for await (const chunk of child.stdout!) {
    output += chunk;
    const match = /listening (\d+)/.exec(output);
    if (match) {
      child.stdout!.resume();
      return `http://127.0.0.1:${match[1]}`;
    }
  }
  throw new Error(`${script} ${args[0] ?? ""} exited before listening: ${output}`);
}

export async function stopChildren(children: ChildProcess[]): Promise<void> {
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(children.map((child) => (child.exitCode === null ? once(child, "exit") : undefined)));
}

/** The real Arca server (bench/serve-arca.ts) over `databaseUrl`, as a child. */
export function startArca(databaseUrl: string, children: ChildProcess[], env?: Record<string, string>): Promise<string> {
  return startChild(fileURLToPath(new URL("./serve-arca.ts", import.meta.url)), [databaseUrl], children, { profile: true, env });
}

/** CPU seconds (user + system; with its waited-for children's) a process has used so far, from /proc (0 when unreadable). */
export function cpuSeconds(pid: number, part: "user" | "system" | "both" | "with children" = "both", tid?: number): number {
  try {
    // With `tid`: that thread of the process alone.
    const fields = fs.readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1].split(" ");
    const user = Number(fields[11]) / 100;
    const system = Number(fields[12]) / 100;
    // Children it waited for (exited ones: a PostgreSQL postmaster's backends).
    const children = (Number(fields[13]) + Number(fields[14])) / 100;
    return part === "user" ? user : part === "system" ? system : part === "both" ? user + system : user + system + children;
  } catch {
    return 0;
  }
}

/** CPU seconds so far of every PostgreSQL process on the machine (backends, walwriter, ...), with their exited children's. */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/comm`, "utf8").trim() === "postgres") total += cpuSeconds(Number(name), "with children");
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** Resident set size of a process, from /proc (Linux), in MiB. */
export function rssMiB(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** Runs a benchmark's `main`: exit 0 when it ends, 1 with the error printed when it fails. */
export function runBenchmark(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
