import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * `scripts/serve-api.ts` as a real child process: the whole lifecycle of `npm start` (database
 * start or the embedded PostgreSQL, migrations, start-up cleanup, signals) without Next. For
 * tests that kill it. `env` replaces the test's DATABASE_URL and ARCA_DATA_DIR; PORT is free.
 */
export interface ServeApiProcess {
  url: string;
  child: ChildProcess;
  /** Everything it printed (stdout and stderr). */
  output(): string;
  /** Sends the signal and resolves with the exit code (null after a signal it did not catch). */
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

const entry = fileURLToPath(new URL("../../scripts/serve-api.ts", import.meta.url));

export async function startServeApi(env: Record<string, string | undefined>, timeoutMs = 60_000): Promise<ServeApiProcess> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: "0", NODE_ENV: "production", ...env };
  for (const [key, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[key];
  const child = spawn(process.execPath, ["--import", "tsx", entry], { stdio: ["ignore", "pipe", "pipe"], env: childEnv });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve-api did not start in ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = /serving http:\/\/localhost:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${match[1]}`);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", () => {
      clearTimeout(timer);
      reject(new Error(`serve-api exited before serving:\n${output}`));
    });
  });
  return {
    url,
    child,
    output: () => output,
    async kill(signal = "SIGKILL") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
