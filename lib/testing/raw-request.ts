import http from "node:http";

/**
 * One HTTP request with exactly the bytes given: a request-target fetch would normalize (`*`,
 * malformed percent-escapes), headers fetch refuses, a multipart body written by hand.
 */
export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
}

export function rawRequest(
  port: number,
  target: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; timeoutMs?: number } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      // agent: false, a connection per request: a server that answers early (413) and closes
      // must not turn the next request on a reused socket into a "socket hang up".
      { host: "127.0.0.1", port, path: target, method: options.method ?? "GET", headers: options.headers, timeout: options.timeoutMs ?? 30_000, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer to ${options.method ?? "GET"} ${target} within the bound`)));
    req.on("error", reject);
    req.end(options.body);
  });
}

/** A multipart/form-data body written by hand, as a browser sends it (`filename` verbatim). */
export function multipartBody(parts: { name: string; filename?: string; filenameStar?: string; type?: string; value: string | Buffer }[]) {
  const boundary = "----ArcaBoundary7MA4YWxkTrZu0gW";
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let disposition = `form-data; name="${part.name}"`;
    if (part.filename !== undefined) disposition += `; filename="${part.filename}"`;
    if (part.filenameStar !== undefined) disposition += `; filename*=${part.filenameStar}`;
    let head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n`;
    if (part.filename !== undefined || part.filenameStar !== undefined) head += `Content-Type: ${part.type ?? "application/octet-stream"}\r\n`;
    else if (part.type !== undefined) head += `Content-Type: ${part.type}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`, "utf8"), Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value, "utf8"), Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
