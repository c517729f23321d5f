import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readMultipart } from "./multipart-body";

const BOUNDARY = "----Bnd7";
const body = [
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\n"one"\r\n`,
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="b"\r\n\r\n{"c":[1,2]}\r\n`,
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="d"\r\n\r\n"--${BOUNDARY.slice(0, 4)} not a delimiter"\r\n`,
  `--${BOUNDARY}--\r\n`,
].join("");
const request = new Request("http://x/", { method: "POST", headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` } });

function inChunks(text: string, size: number): Readable {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return Readable.from(chunks);
}

describe("readMultipart", () => {
  it("counts every part however the body is cut into chunks (delimiters split across chunks)", async () => {
    for (const size of [1, 2, 3, 5, 7, 11, 64, 4096]) {
      expect(await readMultipart(request, inChunks(body, size)), `chunks of ${size}`).toEqual({ a: "one", b: { c: [1, 2] }, d: `--${BOUNDARY.slice(0, 4)} not a delimiter` });
    }
  });

  it("refuses a part it could not read, whatever the chunks", async () => {
    const unread = body.replace('name="b"', "name*=x-bogus''b");
    for (const size of [1, 3, 4096]) await expect(readMultipart(request, inChunks(unread, size))).rejects.toThrow(/^A part of the multipart body could not be read/);
  });
});
