import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Arca's API server as a real child process (for tests that kill it: SIGKILL, restart), over
 * `databaseUrl`, with its own data directory unless one is given. Resolves once it listens.
 */
export interface ApiProcess {
  url: string;
  child: ChildProcess;
  dataDir: string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const entry = fileURLToPath(new URL("./api-process-entry.ts", import.meta.url));

export async function startApiProcess(databaseUrl: string, env: Record<string, string> = {}, dataDir?: string): Promise<ApiProcess> {
  const dir = dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "arca-process-"));
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env, DATABASE_URL: databaseUrl, ARCA_DATA_DIR: dir, NODE_ENV: "production" },
  });
  let output = "";
  for await (const chunk of child.stdout!) {
    output += chunk;
    const match = /listening (\d+)/.exec(output);
    if (match) {
      child.stdout!.resume();
      return {
        url: `http://127.0.0.1:${match[1]}`,
        child,
        dataDir: dir,
        async kill(signal = "SIGKILL") {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise((r) => child.once("exit", r));
          child.kill(signal);
          await exited;
        },
      };
    }
  }
  throw new Error(`the API process exited before listening: ${output}`);
}
