import { describe, expect, it } from "vitest";
import { contentDisposition, isActiveContent } from "./active-content";

describe("isActiveContent", () => {
  it.each<[string, boolean]>([
    // scriptable documents
    ["text/html", true],
    ["text/html; charset=utf-8", true],
    ["TEXT/HTML", true],
    ["application/xhtml+xml", true],
    ["image/svg+xml", true],
    ["application/xml", true],
    ["text/xml", true],
    ["application/rss+xml", true],
    ["application/mathml+xml", true],
    ["application/javascript", true],
    ["text/javascript", true],
    ["application/ecmascript", true],
    ["application/x-shockwave-flash", true],
    ["application/vnd.mozilla.xul+xml", true],
    ["text/css", true],
    ["message/rfc822", true],
    ["multipart/related", true],
    // not clearly passive
    ["application/octet-stream", true],
    ["application/zip", true],
    ["application/x-msdownload", true],
    ["text/vnd.wap.wml", true],
    ["", true],
    ["garbage", true],
    ["image/", true],
    // passive
    ["image/png", false],
    ["image/jpeg", false],
    ["image/gif", false],
    ["image/webp", false],
    ["image/x-icon", false],
    ["text/plain", false],
    ["text/plain; charset=utf-8", false],
    ["text/csv", false],
    ["application/json", false],
    ["application/pdf", false],
    ["audio/mpeg", false],
    ["audio/x-wav", false],
    ["video/mp4", false],
    ["video/webm", false],
  ])("%j -> %s", (type, active) => {
    expect(isActiveContent(type)).toBe(active);
  });
});

describe("contentDisposition", () => {
  it.each<[string, "inline" | "attachment", string, string]>([
    ["plain ASCII", "attachment", "report.pdf", "attachment; filename=\"report.pdf\"; filename*=UTF-8''report.pdf"],
    ["inline", "inline", "cat.png", "inline; filename=\"cat.png\"; filename*=UTF-8''cat.png"],
    ["spaces", "attachment", "my report 2024.pdf", "attachment; filename=\"my report 2024.pdf\"; filename*=UTF-8''my%20report%202024.pdf"],
    ["quotes escaped", "attachment", 'say "hi".txt', "attachment; filename=\"say \\\"hi\\\".txt\"; filename*=UTF-8''say%20%22hi%22.txt"],
    ["backslash escaped", "attachment", "a\\b.txt", "attachment; filename=\"a\\\\b.txt\"; filename*=UTF-8''a%5Cb.txt"],
    ["semicolon and equals stay quoted", "attachment", "a;b=c.txt", "attachment; filename=\"a;b=c.txt\"; filename*=UTF-8''a%3Bb%3Dc.txt"],
    [
      "percent escapes get an exact filename*",
      "attachment",
      "100%20off.txt",
      "attachment; filename=\"100%20off.txt\"; filename*=UTF-8''100%2520off.txt",
    ],
    [
      "newline cannot inject a header",
      "attachment",
      "evil.txt\r\nSet-Cookie: a=b",
      "attachment; filename=\"evil.txt__Set-Cookie: a=b\"; filename*=UTF-8''evil.txt%0D%0ASet-Cookie%3A%20a%3Db",
    ],
    ["NUL and tab", "attachment", "a\0b\tc", "attachment; filename=\"a_b_c\"; filename*=UTF-8''a%00b%09c"],
    [
      "accents keep their letters in the fallback",
      "attachment",
      "Résumé.pdf",
      "attachment; filename=\"Resume.pdf\"; filename*=UTF-8''R%C3%A9sum%C3%A9.pdf",
    ],
    [
      "Cyrillic",
      "inline",
      "Отчёт.pdf",
      "inline; filename=\"_____.pdf\"; filename*=UTF-8''%D0%9E%D1%82%D1%87%D1%91%D1%82.pdf",
    ],
    ["emoji is one character", "attachment", "🎉.png", "attachment; filename=\"_.png\"; filename*=UTF-8''%F0%9F%8E%89.png"],
    ["lone surrogate does not throw", "attachment", "a\ud800.txt", "attachment; filename=\"a_.txt\"; filename*=UTF-8''a%EF%BF%BD.txt"],
    ["attr-chars stay literal", "attachment", "é!#$&+-.^_`|~", "attachment; filename=\"e!#$&+-.^_`|~\"; filename*=UTF-8''%C3%A9!#$&+-.^_`|~"],
    ["empty name", "attachment", "", "attachment"],
  ])("%s", (_name, kind, fileName, expected) => {
    expect(contentDisposition(kind, fileName)).toBe(expected);
  });

  it.each(["évil\r\n\"\\.txt", "a\u2028b", "\u0085x", "🎉\n🎉", "x".repeat(300)])(
    "is always a legal header value: %j",
    (fileName) => {
      const value = contentDisposition("attachment", fileName);
      expect(value).toMatch(/^[\x20-\x7e]+$/);
      expect(() => new Headers({ "content-disposition": value })).not.toThrow();
    },
  );

  it("filename* decodes back to the name", () => {
    const name = "Отчёт «итог» 2024 — 🎉.pdf";
    const star = contentDisposition("attachment", name).split("filename*=UTF-8''")[1];
    expect(decodeURIComponent(star)).toBe(name);
  });
});
