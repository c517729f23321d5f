import { confirmationCode, waitForMail } from "./mail";

/** Direct API calls for a spec's setup (the browser flows are tested in the specs themselves). */
export const BASE_URL = process.env.E2E_BASE_URL ?? "http://localhost:3100";

export interface Answer {
  status: number;
  body: any;
}

export async function api(
  pathname: string,
  options: { method?: string; json?: unknown; session?: string; token?: string; project?: string; action?: string; base?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.session) headers.authorization = `SessionId ${options.session}`;
  if (options.token) headers.authorization = `Token ${options.token}`;
  if (options.project) headers["x-project"] = options.project;
  if (options.action) headers["x-action"] = options.action;
  if (options.json !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${options.base ?? BASE_URL}${pathname}`, {
    method: options.method ?? (options.json !== undefined ? "POST" : "GET"),
    headers,
    body: options.json !== undefined ? JSON.stringify(options.json) : undefined,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: keep the text.
  }
  return { status: response.status, body };
}

/** A unique, valid e-mail for one test run. */
export function uniqueEmail(label: string): string {
  return `${label}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.test`;
}

/** Signs a user up and confirms the mailed code through the API; returns an API session id. */
export async function signUpViaApi(email: string, password: string): Promise<string> {
  const since = Date.now();
  const signUp = await api("/api/user/", { json: { email, password } });
  if (signUp.status !== 201) throw new Error(`sign-up: ${signUp.status} ${JSON.stringify(signUp.body)}`);
  const code = confirmationCode(await waitForMail(email, { since }));
  const confirm = await api("/api/user/", { json: { code }, action: "confirm" });
  if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status} ${JSON.stringify(confirm.body)}`);
  return confirm.body.sessionId as string;
}

export async function createProjectViaApi(session: string, id: string, name = id): Promise<void> {
  const answer = await api("/api/user/projects/", { json: { _id: id, name }, session });
  if (answer.status !== 201) throw new Error(`create project: ${answer.status} ${JSON.stringify(answer.body)}`);
}

export async function createTokenViaApi(session: string, project: string, permission: unknown): Promise<string> {
  const answer = await api("/api/collections/_tokens/documents/", { json: { name: "e2e", permission }, session, project });
  if (answer.status !== 201) throw new Error(`create token: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.token as string;
}

/** A project id unlikely to collide across runs sharing nothing but the name space. */
export function uniqueProjectId(label: string): string {
  return `${label}-${Date.now().toString(36)}`;
}
