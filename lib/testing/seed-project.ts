import type pg from "pg";
import { hashSecret, randomSecret } from "../auth/secrets";

/**
 * A user, the project and an all-powerful token, straight in SQL (benchmarks, and tests whose
 * servers run as child processes); returns the token's secret.
 */
export async function seedProject(client: pg.Client, project: string): Promise<string> {
  const secret = randomSecret();
  const user = `${project}-owner`;
  await client.query(`INSERT INTO users (id, email, password_hash, confirmed_at) VALUES ($1, $2, 'x', now())`, [user, `${user}@example.test`]);
  await client.query(`INSERT INTO projects (id, name, owner_id, settings) VALUES ($1, $1, $2, '{}')`, [project, user]);
  await client.query(
    `INSERT INTO tokens (project_id, id, name, secret_hash, permission) VALUES ($1, 'seed', 'seed', $2, '{"all": true, "read": [], "write": [], "update": [], "delete": []}')`,
    [project, hashSecret(secret)],
  );
  return secret;
}
