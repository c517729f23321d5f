/**
 * The content type of an upload, decided from its bytes, never from what the client declared
 * (CONTRACT §6): magic numbers first, then the name's extension, then "is it UTF-8 text?".
 * The result is what the file is; whether it may be stored is `isAllowedContentType`'s question,
 * so an ELF binary comes out as `application/x-elf` and the caller refuses it with 422.
 */
import { isUtf8 } from "node:buffer";
import path from "node:path";
import { fileTypeFromBuffer } from "file-type";
import { lookup } from "mime-types";
import { isAllowedContentType } from "./allowed-content-types";

// Callers asking "what is it?" ask "may it be stored?" next.
export { isAllowedContentType };

/**
 * How many leading bytes decide the type: file-type's own sample size (its internal
 * `reasonableDetectionSizeInBytes`, what `fileTypeFromStream` reads). Bytes beyond it are ignored,
 * so the answer never depends on how much of the upload happened to be buffered.
 */
export const CONTENT_TYPE_HEAD_BYTES = 4100;

export async function detectContentType(head: Uint8Array, fileName: string): Promise<string> {
  head = head.subarray(0, CONTENT_TYPE_HEAD_BYTES);
  const byName = canonical(extensionType(fileName));
  // A UTF-16 byte order mark is text's own signature; FF FE also reads as an MPEG audio frame
  // header, which made a Windows "Unicode" text file audio/mpeg.
  if (isUtf16Text(head)) return byName ?? "text/plain";
  const byMagic = canonical(await magicType(head));

  if (byMagic) {
    // A container signature (zip, OLE, an XML prolog) says little; a matching name says more.
    if (byName && refines(byMagic, byName)) return byName;
    return byMagic;
  }
  // The contract's order, to the letter: a known extension decides before "is it text?", so
  // `notes.md` is text/markdown and `app.php` application/x-httpd-php, which the seed's list
  // lacks (422 for the caller), even when the bytes are plain text.
  if (byName) return byName;
  return isText(head) ? "text/plain" : "application/octet-stream";
}

async function magicType(head: Uint8Array): Promise<string | undefined> {
  try {
    return (await fileTypeFromBuffer(head))?.mime;
  } catch {
    // A parser choking on a truncated or hostile head means "no signature", not a failed upload.
    return undefined;
  }
}

/** Only a real extension counts: mime-types would read a file named `json` as `.json`. */
function extensionType(fileName: string): string | undefined {
  const base = fileName.split(/[\\/]/).pop() ?? "";
  const ext = path.extname(base);
  if (ext.length < 2) return undefined;
  return lookup(ext) || undefined;
}

/**
 * Newer registrations that file-type and mime-db use, mapped to the spelling the seed's list
 * (an older mime.types) has for the same format; without this a WAV, a TTF or a `.js` file
 * would be refused for its name's age, not its content.
 */
const SEED_SPELLING: Readonly<Record<string, string>> = {
  "text/javascript": "application/javascript",
  "application/x-javascript": "application/javascript",
  "audio/wav": "audio/x-wav",
  "audio/vnd.wave": "audio/x-wav",
  "audio/flac": "audio/x-flac",
  "audio/aac": "audio/x-aac",
  "audio/aiff": "audio/x-aiff",
  "audio/x-m4a": "audio/mp4",
  "video/matroska": "video/x-matroska",
  "audio/matroska": "audio/x-matroska",
  "video/vnd.avi": "video/x-msvideo",
  "application/vnd.ms-asf": "video/x-ms-asf",
  "audio/x-ms-asf": "video/x-ms-asf",
  "font/ttf": "application/x-font-ttf",
  "font/otf": "application/x-font-otf",
  "font/woff": "application/font-woff",
  "image/vnd.microsoft.icon": "image/x-icon",
  "image/apng": "image/png", // an animated PNG is a PNG to every decoder that ignores acTL
  "application/vnd.rar": "application/x-rar-compressed",
  "application/x-msdos-program": "application/x-msdownload",
  "application/x.ms.shortcut": "application/x-ms-shortcut",
  "application/x-deb": "application/x-debian-package",
  "application/vnd.debian.binary-package": "application/x-debian-package",
  "image/mj2": "video/mj2",
  "image/jpm": "video/jpm",
  "application/eps": "application/postscript",
  "audio/x-s3m": "audio/s3m",
  "audio/x-xm": "audio/xm",
};

/** A type as the seed's list spells it (its essence, lower case, older registrations' names). */
export function canonical(type: string | undefined): string | undefined {
  if (!type) return undefined;
  // file-type reports e.g. `audio/ogg; codecs=opus`; the type is the essence.
  const essence = type.split(";", 1)[0].trim().toLowerCase();
  return SEED_SPELLING[essence] ?? essence;
}

/** Generic signatures whose specific format only the name can tell, and which names may refine them. */
const FAMILIES: ReadonlyArray<[string, RegExp]> = [
  ["application/xml", /^[a-z]+\/(?:[^;]+\+)?xml$/], // image/svg+xml, application/rss+xml, ...
  [
    "application/zip",
    /\+zip$|^application\/(?:vnd\.openxmlformats-officedocument\.|vnd\.oasis\.opendocument\.|vnd\.ms-[a-z]+\.[a-z.]*macroenabled|java-archive|vnd\.android\.package-archive|x-xpinstall|vnd\.ms-xpsdocument|oxps|vnd\.google-earth\.kmz|vnd\.sun\.xml\.)/,
  ],
  ["application/x-cfb", /^application\/(?:msword|vnd\.ms-|vnd\.visio|x-ms)/], // .doc .xls .ppt .msg .msi ...
];

function refines(byMagic: string, byName: string): boolean {
  return FAMILIES.some(([generic, family]) => byMagic === generic && byName !== generic && family.test(byName));
}

/**
 * Valid UTF-8 without the C0 controls that never occur in text (NUL, most of 0x01-0x1F): valid
 * UTF-8 alone would call a block of zeros or a UTF-16 file "text". A multi-byte character cut
 * at the end of the head is the head's doing, not the file's, so an incomplete trailing
 * sequence is tolerated.
 */
function isText(head: Uint8Array): boolean {
  const sample = head.subarray(0, dropIncompleteTail(head));
  for (const byte of sample) if (isForeignControl(byte)) return false;
  return isUtf8(sample);
}

/** A UTF-16 byte order mark followed by text: valid UTF-16 (a code unit or a surrogate cut at the end of the head tolerated) without C0 controls but whitespace. */
function isUtf16Text(head: Uint8Array): boolean {
  const littleEndian = head[0] === 0xff && head[1] === 0xfe;
  if (!littleEndian && !(head[0] === 0xfe && head[1] === 0xff)) return false;
  // FF FE 00 00 is UTF-32's mark.
  if (littleEndian && head[2] === 0 && head[3] === 0) return false;
  let end = head.length - (head.length % 2);
  const unitAt = (i: number) => (littleEndian ? head[i] | (head[i + 1] << 8) : (head[i] << 8) | head[i + 1]);
  if (end > 2 && unitAt(end - 2) >= 0xd800 && unitAt(end - 2) <= 0xdbff) end -= 2;
  let text: string;
  try {
    text = new TextDecoder(littleEndian ? "utf-16le" : "utf-16be", { fatal: true }).decode(head.subarray(2, end));
  } catch {
    return false;
  }
  for (let i = 0; i < text.length; i++) if (isForeignControl(text.charCodeAt(i))) return false;
  return true;
}

/** A C0 control that never occurs in text (NUL, most of 0x01-0x1F; tab, line ends and ESC do). */
function isForeignControl(code: number): boolean {
  return code < 0x20 && !(code >= 0x09 && code <= 0x0d) && code !== 0x1b;
}

/** Length of `bytes` without a trailing, incomplete multi-byte sequence (at most 3 bytes go). */
function dropIncompleteTail(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let i = n - 1; i >= Math.max(0, n - 3); i--) {
    const byte = bytes[i];
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: keep looking for its lead
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return n - i < needed ? i : n;
  }
  return n;
}
