import { config } from "../lib/config";
import { startDatabase } from "../lib/db/start-database";
import { ensureConfirmedUser, findUserByEmail } from "../lib/auth/users";
import { createProject, readProject } from "../lib/projects/projects";
import { createToken } from "../lib/auth/tokens";
import { AppError } from "../lib/errors";
import { createLocalDiskBlobStore } from "../lib/blob/local-disk-blob-store";
import { migrateBlobs, recordBlobStore } from "../lib/blob/migrate-blobs";
import { createS3BlobStore, s3SettingsFromEnv } from "../lib/blob/s3-blob-store";
import path from "node:path";

/**
 * The operator CLI (CONTRACT §12):
 *   npm run arca -- user create <email> --password <pw>
 *   npm run arca -- project create <id> --owner <email> [--name <n>]
 *   npm run arca -- token create <project> --name <n> [--permission '<json>']
 *   npm run arca -- blobs migrate --to s3          (ARCA_S3_* set; docs/deploy.md)
 * `token create` prints the secret alone on the last line of stdout.
 */
const usage = `usage:
  arca user create <email> --password <pw>        (an existing user: password reset, confirmed; a new password ends its sessions)
  arca project create <id> --owner <email> [--name <n>]
  arca token create <project> --name <n> [--permission '<json>']
                                                  (without --permission: every right, {"allow":{"all":true}})
  arca blobs migrate --to s3
  arca help | --help | -h`;

/** Each command: its words, the one subject it takes (if any), and the only flags it knows. */
const COMMANDS: Record<string, { subject: boolean; flags: string[]; required: string[] }> = {
  "user create": { subject: true, flags: ["password"], required: ["password"] },
  "project create": { subject: true, flags: ["owner", "name"], required: ["owner"] },
  "token create": { subject: true, flags: ["name", "permission"], required: ["name"] },
  "blobs migrate": { subject: false, flags: ["to"], required: ["to"] },
};

/** Thrown for a request for help: the usage goes to stdout and the exit code is 0. */
class HelpRequested extends Error {}

export function parseArgs(argv: string[]): { words: string[]; flags: Record<string, string> } {
  const words: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--help" || arg === "-h") throw new HelpRequested(usage);
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      if (eq > 0) flags[arg.slice(2, eq)] = arg.slice(eq + 1);
      else {
        const value = argv[i + 1];
        if (value === undefined || value.startsWith("--")) throw new Error(`${arg} needs a value\n${usage}`);
        flags[arg.slice(2)] = value;
        i++;
      }
    } else if (arg.startsWith("-") && arg.length > 1) throw new Error(`unknown option ${arg}\n${usage}`);
    else words.push(arg);
  }
  return { words, flags };
}

/**
 * The command line as a command: a misspelled flag or a stray word is an error, never ignored
 * (`--permision` would otherwise make a token with every right).
 */
export function parseCommand(argv: string[]): { command: string; subject?: string; flags: Record<string, string> } {
  const { words, flags } = parseArgs(argv);
  if (words.length === 1 && words[0] === "help") throw new HelpRequested(usage);
  const command = words.slice(0, 2).join(" ");
  const spec = COMMANDS[command];
  if (!spec) throw new Error(words.length ? `unknown command: ${words.slice(0, 2).join(" ")}\n${usage}` : usage);
  const rest = words.slice(2);
  if (spec.subject && rest.length === 0) throw new Error(`${command} needs ${command.startsWith("user") ? "an e-mail address" : command.startsWith("project") ? "a project id" : "a project"}\n${usage}`);
  const extra = rest.slice(spec.subject ? 1 : 0);
  if (extra.length) throw new Error(`unexpected argument ${JSON.stringify(extra[0])}\n${usage}`);
  for (const name of Object.keys(flags)) if (!spec.flags.includes(name)) throw new Error(`unknown option --${name} for ${command}\n${usage}`);
  for (const name of spec.required) if (!flags[name]) throw new Error(`--${name} is required\n${usage}`);
  return { command, subject: spec.subject ? rest[0] : undefined, flags };
}

async function run(argv: string[]): Promise<void> {
  const { command, subject, flags } = parseCommand(argv);
  if (command === "blobs migrate") return migrate(flags);
  const database = await startDatabase(config(), { lasting: false });
  try {
    if (command === "user create") {
      const user = await ensureConfirmedUser(subject!, flags.password);
      console.log(`user ${user.email} is ready (confirmed)`);
    } else if (command === "project create") {
      const owner = await findUserByEmail(flags.owner);
      if (!owner) throw new Error(`No confirmed user ${flags.owner}; create it first with: arca user create`);
      const project = await createProject(owner, subject!, flags.name !== undefined ? { name: flags.name } : {});
      console.log(`project ${project._id} created, owned by ${owner.email}`);
    } else {
      // An operator's token is the project's master key unless --permission narrows it (the
      // API's default is none: there a token is made by someone already holding rights).
      let permission: unknown = { allow: { all: true } };
      if (flags.permission) {
        try {
          permission = JSON.parse(flags.permission);
        } catch {
          throw new Error("--permission must be JSON");
        }
      }
      await readProject(subject!); // an unknown project: "Project not found.", not a foreign-key error
      const token = await createToken(subject!, { name: flags.name, permission });
      console.log(`token ${token._id} created in project ${subject}`);
      console.log(token.token);
    }
  } finally {
    await database.stop();
  }
}

/** Copies the local disk's blobs to S3, verified, then switches this data directory to S3. */
async function migrate(flags: Record<string, string>): Promise<void> {
  if (flags.to !== "s3") throw new Error(`--to s3 is the only target\n${usage}`);
  const target = createS3BlobStore(s3SettingsFromEnv());
  await target.check();
  const database = await startDatabase(config(), { lasting: false });
  try {
    const source = createLocalDiskBlobStore(path.join(config().dataDir, "files"));
    const report = await migrateBlobs(source, target, { log: (line) => console.log(line) });
    console.log(`${report.total} blobs: ${report.copied} copied, ${report.skipped} already in S3, ${report.missing.length} missing, ${report.mismatched.length} mismatched`);
    if (report.missing.length || report.mismatched.length) throw new Error("not switched: fix or delete the files above, then run again");
    await recordBlobStore(config().dataDir, "s3");
    console.log(`switched: ${config().dataDir} serves files from S3 from the next start (keep ARCA_S3_* set)`);
  } finally {
    await database.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run(process.argv.slice(2)).catch((error) => {
    if (error instanceof HelpRequested) {
      console.log(error.message);
      return;
    }
    const message =
      error instanceof AppError
        ? `${error.message}${error.errors ? ` ${JSON.stringify(error.errors)}` : ""}`
        : error instanceof Error
          ? error.message
          : String(error);
    console.error(`arca: ${message}`);
    process.exit(1);
  });
}
