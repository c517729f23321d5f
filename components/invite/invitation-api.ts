/**
 * Browser calls of the invitation page (docs/members.md). The token is the credential; an
 * existing account signs in through `/api/user/` and accepts with its `SessionId`.
 */
export interface Invitation {
  project: { _id: string; name: string };
  email: string;
  state: "valid" | "expired" | "used" | "withdrawn";
  expires_at: string;
  has_account: boolean;
}

export class InvitationError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(path: string, init: { action?: string; json?: unknown; sessionId?: string } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (init.action) headers["x-action"] = init.action;
  if (init.sessionId) headers.authorization = `SessionId ${init.sessionId}`;
  if (init.json !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.action ? "POST" : "GET",
      headers,
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
      credentials: "same-origin",
    });
  } catch {
    throw new InvitationError(0, "Cannot reach the server. Check your connection and try again.");
  }
  const data = await response.json().catch(() => undefined);
  if (!response.ok) {
    const detail = data?.errors?.[0]?.message ?? data?.message ?? `Request failed (${response.status})`;
    throw new InvitationError(response.status, detail);
  }
  return data as T;
}

const path = (token: string) => `/api/invitations/${encodeURIComponent(token)}/`;

export const fetchInvitation = (token: string) => call<Invitation>(path(token));

/** Ends an API session the page opened only to accept (the dashboard signs in through next-auth). */
const endSession = (sessionId: string) => call("/api/user/", { action: "logout", sessionId }).catch(() => undefined);

export async function acceptWithPassword(token: string, password: string, name: string): Promise<void> {
  const { sessionId } = await call<{ sessionId?: string }>(path(token), { action: "accept", json: { password, name } });
  if (sessionId) await endSession(sessionId);
}

export async function acceptWithLogin(token: string, email: string, password: string): Promise<void> {
  const { sessionId } = await call<{ sessionId: string }>("/api/user/", { action: "login", json: { email, password } });
  try {
    await call(path(token), { action: "accept", sessionId });
  } finally {
    await endSession(sessionId);
  }
}

export const requestNewLink = (token: string) => call<{ message: string }>(path(token), { action: "resend" });
