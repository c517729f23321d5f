import { validationError, type PropertyError } from "../errors";

/** The project as the API shows it (CONTRACT §2), and the rules of its settings. */
export interface ProjectSettings {
  debug: boolean;
  files_size_limit: number;
  data_size_limit: number;
  delete_files: boolean;
  orphan_files_ttl: string;
  /** How long the change feed can resume from an event (CONTRACT §13); "" or "0": forever. */
  events_ttl: string;
  /** How long finished hook deliveries stay in `_hooks_history` (CONTRACT §8). */
  hooks_history_ttl: string;
}

export interface ProjectView {
  _id: string;
  name: string;
  settings: ProjectSettings;
  status: { files_size: number; data_size: number; is_active: boolean };
}

export interface ProjectRow {
  id: string;
  name: string;
  ownerId: string;
  settings: unknown;
  isActive: boolean;
  filesSize: bigint | number;
  dataSize: bigint | number;
}

export const MAX_PROJECTS_PER_OWNER = 5;
export const PROJECT_ID = /^[a-z][a-z0-9-]{1,62}$/;

export const defaultSettings: ProjectSettings = {
  debug: false,
  files_size_limit: 0,
  data_size_limit: 0,
  delete_files: true,
  orphan_files_ttl: "",
  events_ttl: "24h",
  hooks_history_ttl: "720h",
};

export function projectView(row: ProjectRow): ProjectView {
  return {
    _id: row.id,
    name: row.name,
    settings: { ...defaultSettings, ...(row.settings as Partial<ProjectSettings>) },
    status: { files_size: Number(row.filesSize), data_size: Number(row.dataSize), is_active: row.isActive },
  };
}

/**
 * The longest duration a setting takes (100 years). Beyond it PostgreSQL's intervals overflow, and
 * one project's "100000000000000000000s" once made every sweep and pruning pass fail for all
 * projects ("interval out of range").
 */
export const MAX_DURATION_MS = 100 * 365 * 86_400_000;

/**
 * Durations like "168h", "30m", "7d", "90s"; "" or "0" means never. Returns milliseconds, or
 * undefined when the text is not a duration or exceeds MAX_DURATION_MS (a stored value from before
 * that limit then reads as "never" for its own project, and stops nobody else's sweep).
 */
export function parseDuration(text: string): number | undefined {
  if (text === "" || text === "0") return 0;
  const match = /^(\d{1,16})(ms|s|m|h|d)$/.exec(text);
  if (!match) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as "ms"];
  const ms = Number(match[1]) * unit;
  return ms <= MAX_DURATION_MS ? ms : undefined;
}

/**
 * Validates the writable part of a project body. `base` is what the write starts from (defaults
 * for create/save, the stored project for patch). `status` may only change `is_active`.
 */
export function parseProjectInput(
  body: Record<string, unknown>,
  base: { name: string; settings: ProjectSettings; isActive: boolean },
): { name: string; settings: ProjectSettings; isActive: boolean } {
  const errors: PropertyError[] = [];
  const result = { name: base.name, settings: { ...base.settings }, isActive: base.isActive };
  for (const [key, value] of Object.entries(body)) {
    if (key === "_id") continue;
    if (key === "name") {
      if (typeof value !== "string" || value.trim() === "" || value.length > 200)
        errors.push({ property: "name", message: "must be a non-empty string of at most 200 characters" });
      else result.name = value;
    } else if (key === "settings") {
      if (!isObject(value)) errors.push({ property: "settings", message: "must be an object" });
      else Object.assign(result.settings, parseSettings(value, errors));
    } else if (key === "status") {
      if (!isObject(value)) errors.push({ property: "status", message: "must be an object" });
      else
        for (const [statusKey, statusValue] of Object.entries(value)) {
          if (statusKey === "is_active" && typeof statusValue === "boolean") result.isActive = statusValue;
          else if (statusKey === "is_active")
            errors.push({ property: "status.is_active", message: "must be a boolean" });
          else if (statusKey !== "files_size" && statusKey !== "data_size")
            errors.push({ property: `status.${statusKey}`, message: "is not a status property" });
        }
    } else errors.push({ property: key, message: "is not a project property" });
  }
  if (errors.length) throw validationError("Validation error", errors);
  return result;
}

function parseSettings(value: Record<string, unknown>, errors: PropertyError[]): Partial<ProjectSettings> {
  const out: Partial<ProjectSettings> = {};
  for (const [key, v] of Object.entries(value)) {
    const property = `settings.${key}`;
    switch (key) {
      case "debug":
      case "delete_files":
        if (typeof v === "boolean") out[key] = v;
        else errors.push({ property, message: "must be a boolean" });
        break;
      case "files_size_limit":
      case "data_size_limit":
        if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) out[key] = v;
        else errors.push({ property, message: "must be a whole number of bytes, 0 for none" });
        break;
      case "orphan_files_ttl":
      case "events_ttl":
      case "hooks_history_ttl":
        if (typeof v === "string" && parseDuration(v) !== undefined) out[key] = v;
        else errors.push({ property, message: 'must be a duration like "168h", "30m" or "" for never, of at most 100 years' });
        break;
      default:
        errors.push({ property, message: "is not a project setting" });
    }
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
