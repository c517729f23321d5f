import { config } from "../config";

/**
 * Where people reach the dashboard, for links in mails: `ARCA_PUBLIC_URL` when set (a proxy,
 * https, another port), else `http://<ARCA_BASE_DOMAIN>:<PORT>`. No trailing slash.
 */
export function publicOrigin(env: Record<string, string | undefined> = process.env): string {
  const configured = env.ARCA_PUBLIC_URL?.trim();
  if (configured) return configured.replace(/\/+$/, "");
  const { baseDomain, port } = config();
  return `http://${baseDomain}:${port}`;
}

export function invitationLink(token: string): string {
  return `${publicOrigin()}/invite/${encodeURIComponent(token)}`;
}

/** The project in the dashboard (`app/projects/[id]`). */
export function projectLink(projectId: string): string {
  return `${publicOrigin()}/projects/${encodeURIComponent(projectId)}`;
}
