import { config } from "../lib/config";
import { startDatabase } from "../lib/db/start-database";
import { ensureConfirmedUser, findUserByEmail } from "../lib/auth/users";
import { createProject } from "../lib/projects/projects";
import { createToken } from "../lib/auth/tokens";
import { AppError } from "../lib/errors";

/**
 * The operator CLI (CONTRACT §12):
 *   npm run arca -- user create <email> --password <pw>
 *   npm run arca -- project create <id> --owner <email> [--name <n>]
 *   npm run arca -- token create <project> --name <n> [--permission '<json>']
 * `token create` prints the secret alone on the last line of stdout.
 */
const usage = `usage:
  arca user create <email> --password <pw>
  arca project create <id> --owner <email> [--name <n>]
  arca token create <project> --name <n> [--permission '<json>']`;

export function parseArgs(argv: string[]): { words: string[]; flags: Record<string, string> } {
  const words: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      if (eq > 0) flags[arg.slice(2, eq)] = arg.slice(eq + 1);
      else {
        const value = argv[i + 1];
        if (value === undefined || value.startsWith("--")) throw new Error(`${arg} needs a value\n${usage}`);
        flags[arg.slice(2)] = value;
        i++;
      }
    } else words.push(arg);
  }
  return { words, flags };
}

async function run(argv: string[]): Promise<void> {
  const { words, flags } = parseArgs(argv);
  const [noun, verb, subject] = words;
  if (verb !== "create" || !subject) throw new Error(usage);
  const database = await startDatabase(config());
  try {
    if (noun === "user") {
      if (!flags.password) throw new Error(`--password is required\n${usage}`);
      const user = await ensureConfirmedUser(subject, flags.password);
      console.log(`user ${user.email} is ready (confirmed)`);
    } else if (noun === "project") {
      if (!flags.owner) throw new Error(`--owner is required\n${usage}`);
      const owner = await findUserByEmail(flags.owner);
      if (!owner) throw new Error(`No confirmed user ${flags.owner}; create it first with: arca user create`);
      const project = await createProject(owner, subject, flags.name ? { name: flags.name } : {});
      console.log(`project ${project._id} created, owned by ${owner.email}`);
    } else if (noun === "token") {
      if (!flags.name) throw new Error(`--name is required\n${usage}`);
      let permission: unknown = { allow: { all: true } };
      if (flags.permission) {
        try {
          permission = JSON.parse(flags.permission);
        } catch {
          throw new Error("--permission must be JSON");
        }
      }
      const token = await createToken(subject, { name: flags.name, permission });
      console.log(`token ${token._id} created in project ${subject}`);
      console.log(token.token);
    } else throw new Error(usage);
  } finally {
    await database.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run(process.argv.slice(2)).catch((error) => {
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
