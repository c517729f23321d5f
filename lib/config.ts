import fs from "node:fs";
import path from "node:path";

/** Process configuration, read from the environment once (CONTRACT §12). */
export interface Config {
  port: number;
  baseDomain: string;
  dataDir: string;
  databaseUrl: string | undefined;
  pgPort: number;
  maxFileSize: number;
  smtpUrl: string | undefined;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  /** Where file bytes live: `ARCA_BLOB_STORE`, else what `arca blobs migrate` recorded, else the local disk. */
  blobStore: "local" | "s3";
}

const GiB = 1024 ** 3;

/** A setting the process cannot start with: `npm start` prints its message alone, no stack. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // One without the other was ignored without a word: the operator expected that user to exist.
  if (!env.ARCA_ADMIN_EMAIL !== !env.ARCA_ADMIN_PASSWORD)
    throw new ConfigError("ARCA_ADMIN_EMAIL and ARCA_ADMIN_PASSWORD go together: set both, or neither");
  // Read where it is used (lib/processors/processor-limits.ts); checked here so a bad one stops
  // the start instead of silently meaning the default.
  if (intFrom(env, "ARCA_PROCESSOR_TIMEOUT_MS", 30_000) === 0) throw new ConfigError('ARCA_PROCESSOR_TIMEOUT_MS must be a whole number above 0, not "0"');
  return {
    port: intFrom(env, "PORT", 3000),
    baseDomain: (env.ARCA_BASE_DOMAIN || "localhost").toLowerCase(),
    dataDir: path.resolve(/*turbopackIgnore: true*/ env.ARCA_DATA_DIR || "./data"),
    databaseUrl: env.DATABASE_URL || undefined,
    pgPort: intFrom(env, "ARCA_PG_PORT", 54329),
    maxFileSize: intFrom(env, "ARCA_MAX_FILE_SIZE", 5 * GiB),
    smtpUrl: env.SMTP_URL || undefined,
    adminEmail: env.ARCA_ADMIN_EMAIL || undefined,
    adminPassword: env.ARCA_ADMIN_PASSWORD || undefined,
    blobStore: blobStoreFrom(env.ARCA_BLOB_STORE, path.resolve(/*turbopackIgnore: true*/ env.ARCA_DATA_DIR || "./data")),
  };
}

function blobStoreFrom(value: string | undefined, dataDir: string): "local" | "s3" {
  let chosen = value;
  if (!chosen) {
    try {
      chosen = fs.readFileSync(path.join(dataDir, "blob-store"), "utf8").trim();
    } catch {
      chosen = "local";
    }
  }
  if (chosen !== "local" && chosen !== "s3") throw new ConfigError(`ARCA_BLOB_STORE must be "local" or "s3", not ${JSON.stringify(chosen)}`);
  return chosen;
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new ConfigError(`${name} must be a whole number, not ${JSON.stringify(value)}`);
  return n;
}

let current: Config | undefined;

/** The process-wide configuration; tests may reset it after changing the environment. */
export function config(): Config {
  current ??= readConfig();
  return current;
}

export function resetConfig(): void {
  current = undefined;
}
