/** Pure formatting for the dashboard. */
const UNITS = ["B", "KB", "MB", "GB", "TB", "PB"];

/** 1536 -> "1.5 KB" (binary multiples, as disk tools show them). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return "0 B";
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${Number(value.toFixed(digits))} ${UNITS[unit]}`;
}

export const SIZE_UNITS = [
  { label: "B", bytes: 1 },
  { label: "KB", bytes: 1024 },
  { label: "MB", bytes: 1024 ** 2 },
  { label: "GB", bytes: 1024 ** 3 },
  { label: "TB", bytes: 1024 ** 4 },
] as const;

export type SizeUnit = (typeof SIZE_UNITS)[number]["label"];

/**
 * Splits a byte limit into the largest unit that holds it whole (0 = no limit, shown in MB), so
 * the form shows the exact limit and saving it unchanged sends the same bytes back (a rounded
 * "1.431 MB" moved the limit; a small one showed as "0", which reads as no limit at all).
 */
export function splitLimit(bytes: number): { amount: string; unit: SizeUnit } {
  if (!bytes) return { amount: "0", unit: "MB" };
  for (const unit of [...SIZE_UNITS].reverse()) if (bytes % unit.bytes === 0) return { amount: String(bytes / unit.bytes), unit: unit.label };
  return { amount: String(bytes), unit: "B" };
}

/** The byte count of an amount in a unit, or undefined when the amount is not a number >= 0. */
export function joinLimit(amount: string, unit: SizeUnit): number | undefined {
  const value = Number(amount.trim() === "" ? "0" : amount);
  if (!Number.isFinite(value) || value < 0) return undefined;
  const factor = SIZE_UNITS.find((u) => u.label === unit)?.bytes ?? 1;
  return Math.round(value * factor);
}

/** "My First Project" -> "my-first-project", fitted to ^[a-z][a-z0-9-]{1,62}$ where possible. */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^[^a-z]+/, "")
    .replace(/-+$/, "")
    .slice(0, 63)
    .replace(/-+$/, "");
  return slug;
}

export const PROJECT_ID_PATTERN = "^[a-z][a-z0-9\\-]{1,62}$";
