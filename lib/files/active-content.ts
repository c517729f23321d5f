/**
 * Which stored files a browser may render in our origin, and how their names travel.
 * Users upload whatever they like; served inline from our origin, an HTML or SVG file would run
 * its scripts with the visitor's session. So only formats that cannot script are inline; the
 * rest go out as attachments with `Content-Security-Policy: sandbox` (CONTRACT §6). Both rely on
 * `X-Content-Type-Options: nosniff`, which the caller always sends: without it a browser may
 * sniff "text/plain" into HTML.
 */

/**
 * Passive means: the browser renders it with a media decoder or as plain text, never as a
 * document that can run script or load subresources. A list of the safe, not of the dangerous,
 * because new active types keep appearing (`+xml` dialects, `text/javascript`, module types).
 */
const PASSIVE: ReadonlySet<string> = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/bmp",
  "image/avif",
  "image/x-icon",
  "image/vnd.microsoft.icon",
  "text/plain",
  "text/csv",
  "application/json",
  // Browsers render PDF in an isolated viewer whose scripts cannot reach this origin.
  "application/pdf",
]);

export function isActiveContent(contentType: string): boolean {
  const essence = contentType.split(";", 1)[0].trim().toLowerCase();
  // Any audio or video type is handed to a media decoder; none of them is a document.
  if (/^(audio|video)\/[^/\s]+$/.test(essence)) return false;
  return !PASSIVE.has(essence);
}

/**
 * `Content-Disposition` per RFC 6266: a quoted ASCII `filename` every client understands, plus
 * `filename*` (RFC 8187, UTF-8, percent-encoded) always, as the contract names it: clients that
 * read it get the exact name.
 * Control characters never reach the header, so a name cannot inject header lines.
 */
export function contentDisposition(kind: "inline" | "attachment", fileName: string): string {
  if (fileName === "") return kind;
  const fallback = asciiFallback(fileName);
  return `${kind}; filename="${fallback.replace(/["\\]/g, "\\$&")}"; filename*=UTF-8''${encodeExtValue(fileName)}`;
}

/** Printable ASCII only: accents dropped (`Résumé` -> `Resume`), anything else becomes `_`. */
function asciiFallback(name: string): string {
  let out = "";
  for (const char of name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "")) {
    out += char >= " " && char <= "~" ? char : "_";
  }
  return out;
}

// RFC 8187 attr-char: ALPHA / DIGIT / "!" / "#" / "$" / "&" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~"
const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/;

/**
 * Percent-encodes the UTF-8 bytes of everything but attr-char. Through Buffer rather than
 * encodeURIComponent, which throws on a lone surrogate (Buffer writes U+FFFD instead).
 */
function encodeExtValue(name: string): string {
  let out = "";
  for (const byte of Buffer.from(name, "utf8")) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && ATTR_CHAR.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}
