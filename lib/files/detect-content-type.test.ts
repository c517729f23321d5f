import { describe, expect, it } from "vitest";
import { supportedMimeTypes } from "file-type";
import { canonical, CONTENT_TYPE_HEAD_BYTES, detectContentType, isAllowedContentType } from "./detect-content-type";

const bytes = (...parts: Array<string | number[] | Uint8Array>): Uint8Array =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : Buffer.from(p))));
const utf8 = (s: string) => new TextEncoder().encode(s);

// A real 1x1 grey PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==",
  "base64",
);
// The start of a 64-bit little-endian ELF executable's header.
const ELF = bytes([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00], new Array(8).fill(0), [0x02, 0x00, 0x3e, 0x00], new Array(48).fill(0));
const WASM = bytes("\0asm", [0x01, 0x00, 0x00, 0x00]);
const WAV = bytes("RIFF", [0x24, 0, 0, 0], "WAVEfmt ", [16, 0, 0, 0, 1, 0, 1, 0, 0x44, 0xac, 0, 0, 0x88, 0x58, 1, 0, 2, 0, 16, 0], "data", [0, 0, 0, 0]);
const CFB = bytes([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], new Array(504).fill(0));
const PDF = utf8("%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n1 0 obj\n<<>>\nendobj\n");
const SVG = utf8('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><script>alert(1)</script></svg>');
const SVG_WITH_PROLOG = utf8('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>');
const HTML = utf8("<!doctype html><html><body><script>alert(1)</script></body></html>");

/** A zip holding one stored file, enough for file-type to call it application/zip. */
function zip(entry: string, content: string): Uint8Array {
  const name = Buffer.from(entry);
  const data = Buffer.from(content);
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(10, 4);
  header.writeUInt32LE(data.length, 18);
  header.writeUInt32LE(data.length, 22);
  header.writeUInt16LE(name.length, 26);
  return Buffer.concat([header, name, data]);
}
const ZIP = zip("hello.txt", "hello");

// Deterministic noise that is not UTF-8 and carries no signature.
const NOISE = Uint8Array.from({ length: 512 }, (_, i) => (i * 197 + 89) % 256 | 0x80);

describe("detectContentType", () => {
  const cases: Array<[string, Uint8Array, string, string]> = [
    // magic numbers win over the name
    ["PNG named .txt", PNG, "picture.txt", "image/png"],
    ["PNG without a name", PNG, "", "image/png"],
    ["PDF named .html", PDF, "invoice.html", "application/pdf"],
    ["ELF binary", ELF, "tool", "application/x-elf"],
    ["ELF named .png", ELF, "cat.png", "application/x-elf"],
    ["WebAssembly", WASM, "module.wasm", "application/wasm"],
    ["WebAssembly named .txt", WASM, "readme.txt", "application/wasm"],

    // newer names mapped to the seed's spelling of the same format
    ["WAV by magic", WAV, "sound", "audio/x-wav"],
    ["JavaScript by name", utf8("export const a = 1;\n"), "app.js", "application/javascript"],

    // generic signatures refined by a name of the same family
    ["SVG with an XML prolog, .svg", SVG_WITH_PROLOG, "drawing.svg", "image/svg+xml"],
    ["XML prolog, .xml", SVG_WITH_PROLOG, "data.xml", "application/xml"],
    ["XML prolog named .html stays XML", SVG_WITH_PROLOG, "page.html", "application/xml"],
    ["zip named .docx", ZIP, "letter.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
    ["zip named .epub", ZIP, "book.epub", "application/epub+zip"],
    ["zip named .zip", ZIP, "archive.zip", "application/zip"],
    ["zip named .html stays zip", ZIP, "page.html", "application/zip"],
    ["zip named .png stays zip", ZIP, "photo.png", "application/zip"],
    ["OLE named .doc", CFB, "old.doc", "application/msword"],
    ["OLE named .xls", CFB, "old.xls", "application/vnd.ms-excel"],
    ["OLE without a name", CFB, "blob", "application/x-cfb"],

    // the name's extension when there is no signature
    ["CSV", utf8("a,b\n1,2\n"), "notes.csv", "text/csv"],
    ["CSV, upper-case extension", utf8("a,b\n"), "NOTES.CSV", "text/csv"],
    ["CSV with a Windows path", utf8("a,b\n"), "C:\\Users\\me\\notes.csv", "text/csv"],
    ["HTML by extension", HTML, "index.html", "text/html"],
    ["HTML, .htm", HTML, "index.htm", "text/html"],
    ["SVG by extension", SVG, "drawing.svg", "image/svg+xml"],
    ["JSON", utf8('{"a":1}'), "data.json", "application/json"],
    ["binary with a known extension", NOISE, "photo.jpg", "image/jpeg"],
    ["text named with a type the seed lacks (.md): the extension decides", utf8("# Title\n"), "README.md", "text/markdown"],
    ["text named .php: the extension decides", utf8("<?php echo 1; ?>\n"), "x.php", "application/x-httpd-php"],
    ["binary named with a type the seed lacks", NOISE, "README.md", "text/markdown"],

    // UTF-8 text without a usable name
    ["unknown extension, UTF-8 text", utf8("Grüße, мир, 🌍\n"), "notes.qqqzz", "text/plain"],
    ["no extension, ASCII", utf8("hello\n"), "README", "text/plain"],
    ["a file named just like an extension", utf8('{"a":1}'), "json", "text/plain"],
    ["a dotfile", utf8("KEY=1\n"), ".env", "text/plain"],
    ["SVG markup without a name is just text", SVG, "", "text/plain"],
    ["HTML markup without a name is just text", HTML, "page", "text/plain"],
    ["empty", new Uint8Array(0), "", "text/plain"],
    ["BOM", utf8("\ufeffhello"), "", "text/plain"],
    ["tabs, CR, FF and ESC are text", utf8("a\tb\r\n\f\u001b[0m"), "", "text/plain"],

    // otherwise binary
    ["random binary, no extension", NOISE, "blob", "application/octet-stream"],
    ["random binary, unknown extension", NOISE, "blob.qqqzz", "application/octet-stream"],
    ["NUL bytes are not text", utf8("abc\0def"), "", "application/octet-stream"],
    ["UTF-16 is not UTF-8 text", Buffer.from("hello", "utf16le"), "", "application/octet-stream"],
    // file-type's names for these two are not the seed's list's, which has the formats.
    ["a Debian package", bytes("!<arch>\ndebian-binary   1342943816  0     0     100644  4         `\n2.0\n"), "pkg.deb", "application/x-debian-package"],
    ["Motion JPEG 2000", bytes([0, 0, 0, 0x0c, 0x6a, 0x50, 0x20, 0x20, 0x0d, 0x0a, 0x87, 0x0a, 0, 0, 0, 0x14], "ftypmjp2", [0, 0, 0, 0], "mjp2", new Array(64).fill(0)), "", "video/mj2"],
    // With its byte order mark UTF-16 is text (FF FE also reads as an MPEG audio frame header).
    ["UTF-16LE with a BOM", Buffer.from("\ufeffhello\r\nworld", "utf16le"), "notes.txt", "text/plain"],
    ["UTF-16LE with a BOM, no name", Buffer.from("\ufeffhello", "utf16le"), "", "text/plain"],
    ["UTF-16LE with a BOM, a .csv", Buffer.from("\ufeffa,b\n1,2", "utf16le"), "data.csv", "text/csv"],
    ["UTF-16BE with a BOM", Buffer.from("\ufeffhello", "utf16le").swap16(), "", "text/plain"],
    ["invalid UTF-8 in the middle", bytes("abc", [0xff], "def"), "", "application/octet-stream"],
    ["overlong encoding", bytes("abc", [0xc0, 0xaf]), "", "application/octet-stream"],
  ];

  it.each(cases)("%s", async (_name, head, fileName, expected) => {
    expect(await detectContentType(head, fileName)).toBe(expected);
  });

  it("tolerates a multi-byte character cut at the end of the head", async () => {
    for (const char of ["é", "€", "🌍"]) {
      const text = utf8("a" + char.repeat(CONTENT_TYPE_HEAD_BYTES));
      for (let cut = 1; cut < utf8(char).length; cut++) {
        const head = text.subarray(0, 1 + utf8(char).length * 10 + cut);
        expect(await detectContentType(head, "")).toBe("text/plain");
      }
    }
  });

  it("UTF-16 with a BOM: controls make it no text, a surrogate cut at the end of the head does not", async () => {
    const controls = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("a\u0001\u0002b", "utf16le")]);
    expect(await detectContentType(controls, "")).not.toBe("text/plain");
    const utf32 = Buffer.from([0xff, 0xfe, 0, 0, 0x61, 0, 0, 0]);
    expect(await detectContentType(utf32, "")).not.toBe("text/plain");
    const emoji = Buffer.from(`\ufeff${"a🌍".repeat(CONTENT_TYPE_HEAD_BYTES)}`, "utf16le");
    for (const cut of [7, 8, 9]) expect(await detectContentType(emoji.subarray(0, 2 + cut * 2 + 1), "")).toBe("text/plain");
  });

  it("still refuses an invalid sequence that is not at the end", async () => {
    expect(await detectContentType(bytes("a", [0xe2, 0x82], "b"), "")).toBe("application/octet-stream");
  });

  it("looks at no more than the head", async () => {
    // A PNG signature beyond CONTENT_TYPE_HEAD_BYTES is not a signature.
    const late = bytes(new Array(CONTENT_TYPE_HEAD_BYTES).fill(0x61), PNG);
    expect(await detectContentType(late, "")).toBe("text/plain");
  });

  it("passes file-type at least the 4100 bytes it samples from a stream", () => {
    expect(CONTENT_TYPE_HEAD_BYTES).toBeGreaterThanOrEqual(4100);
  });
});

describe("detected types against the allowed list", () => {
  it.each<[string, Uint8Array, string, boolean]>([
    ["PNG", PNG, "a.png", true],
    ["ELF", ELF, "a", false],
    ["WebAssembly", WASM, "a.wasm", false],
    ["WAV", WAV, "a.wav", true],
    ["JavaScript", utf8("1"), "a.js", true],
    ["SVG", SVG, "a.svg", true],
    ["OLE without a name", CFB, "a", false],
    ["random", NOISE, "a", true],
  ])("%s", async (_name, head, fileName, allowed) => {
    expect(isAllowedContentType(await detectContentType(head, fileName))).toBe(allowed);
  });
});

describe("the suite's opaque upload bytes (lib/testing/fixtures.ts)", () => {
  it("are application/octet-stream whatever their size, where plain random bytes are sometimes a refused format", async () => {
    const { opaqueBytes } = await import("../testing/fixtures");
    // An AC-3 sync word (plain random bytes of 100 came out a refused format 18 times in 200,000).
    expect(isAllowedContentType(await detectContentType(bytes([0x0b, 0x77], new Uint8Array(98)), "a.bin"))).toBe(false);
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(await detectContentType(opaqueBytes(1 + (i % 300)), "a.bin"));
    expect([...seen]).toEqual(["application/octet-stream"]);
  });
});

describe("file-type's names against the seed's list", () => {
  it("every format detected by its bytes is named as the list names it; the rest are formats the list lacks", () => {
    // Formats the seed's list does not have under any name (checked by hand against it).
    const absent = new Set([
      "image/flif", "image/x-xcf", "image/x-canon-cr2", "image/x-canon-cr3", "application/x-indesign", "application/gzip",
      "application/vnd.apache.arrow.file", "audio/qcelp", "audio/ape", "audio/wavpack", "audio/amr", "application/x-elf",
      "application/x-mach-binary", "application/wasm", "font/woff2", "font/collection", "application/x-sqlite3",
      "application/x-nintendo-nes-rom", "application/x-google-chrome-extension", "application/x-unix-archive", "application/x-rpm",
      "application/x-compress", "application/x-lzip", "application/x-cfb", "video/mp2t", "application/x-blender", "image/bpg",
      "image/j2c", "image/jp2", "image/jpx", "image/heif", "image/heif-sequence", "image/heic", "image/heic-sequence", "image/icns",
      "application/dicom", "audio/x-musepack", "text/vtt", "model/gltf-binary", "audio/x-dsf", "application/x.apple.alias",
      "audio/x-voc", "audio/vnd.dolby.dd-raw", "image/x-olympus-orf", "image/x-sony-arw", "image/x-adobe-dng", "image/x-nikon-nef",
      "image/x-panasonic-rw2", "image/x-fujifilm-raf", "application/x-esri-shape", "audio/x-it", "video/mp1s", "video/mp2p",
      "application/vnd.sketchup.skp", "image/avif", "application/x-asar", "model/stl", "model/3mf", "image/jxl", "application/zstd",
      "image/jls", "application/vnd.ms-outlook", "application/vnd.apache.parquet", "application/x-arj", "application/avro",
      "application/x.autodesk.fbx", "application/vnd.google.draco", "application/x-lz4", "application/x-spss-sav",
      "application/x-ms-regedit", "application/x-ft-windows-registry-hive", "application/x-jmp-data",
    ]);
    const misnamed = [...supportedMimeTypes].map((type) => canonical(type)!).filter((type) => !isAllowedContentType(type) && !absent.has(type));
    expect(misnamed).toEqual([]);
  });
});
