/**
 * Where sign-in may send the browser afterwards: only a path on this site (`/projects/x?y`),
 * never `//evil.example`, `/\evil.example`, an absolute URL or anything with control characters.
 */
export function safeRedirect(value: unknown, fallback = "/projects"): string {
  const path = typeof value === "string" ? value : "";
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return fallback;
  // Browsers drop tabs and newlines inside URLs ("/\t/evil.example" is "//evil.example").
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return fallback;
  // Resolved against a dummy origin it must stay on that origin.
  try {
    const url = new URL(path, "http://arca.invalid");
    if (url.origin !== "http://arca.invalid") return fallback;
    return url.pathname + url.search + url.hash;
  } catch {
    return fallback;
  }
}

/** The sign-in page's address for a visitor who wanted `path`. */
export function signInPath(path: string | null | undefined): string {
  const target = safeRedirect(path, "");
  return target && target !== "/" && !target.startsWith("/signin") ? `/signin?callbackUrl=${encodeURIComponent(target)}` : "/signin";
}
