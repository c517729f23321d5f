import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { config } from "../config";

/**
 * The key that signs dashboard sessions: ARCA_SECRET, or one generated once and kept in the data
 * dir so restarts keep people signed in. Read lazily: `next build` must not need it.
 */
let cached: string | undefined;

export function appSecret(): string {
  if (cached) return cached;
  if (process.env.ARCA_SECRET) return (cached = process.env.ARCA_SECRET);
  const file = path.join(config().dataDir, "secret");
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    try {
      fs.writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  cached = fs.readFileSync(file, "utf8").trim();
  process.env.AUTH_SECRET ??= cached;
  return cached;
}
