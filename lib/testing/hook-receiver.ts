import http from "node:http";

/**
 * A real HTTP receiver for hook tests: records every request (time, method, path, headers, body)
 * and answers by path:
 *   /ok        204            /fail     500           /busy  503 with Retry-After: 7
 *   /hang      accepts, never answers                 /slow  answers 204 after 300 ms
 *   /redirect/<n>  307 to /redirect/<n-1>, then /ok
 *   /to/<url, percent-encoded>  307 to that URL (another receiver: another origin)
 *   /flaky/<n> 500 for the first n requests of each X-Hook-Operation-ID, then 204
 */
export interface ReceivedRequest {
  at: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface HookReceiver {
  url: string;
  requests: ReceivedRequest[];
  waitFor(count: number, timeoutMs?: number, predicate?: (r: ReceivedRequest) => boolean): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startHookReceiver(): Promise<HookReceiver> {
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const seen = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      requests.push({ at: Date.now(), method: req.method ?? "", path, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      const redirect = /^\/redirect\/(\d+)/.exec(path);
      const flaky = /^\/flaky\/(\d+)/.exec(path);
      if (path.startsWith("/ok")) res.writeHead(204).end();
      else if (path.startsWith("/to/")) res.writeHead(307, { location: decodeURIComponent(path.slice("/to/".length)) }).end();
      else if (path.startsWith("/fail")) res.writeHead(500, { "content-type": "text/plain" }).end("receiver failed");
      else if (path.startsWith("/busy")) res.writeHead(503, { "retry-after": "7" }).end();
      else if (path.startsWith("/hang")) hanging.add(res);
      else if (path.startsWith("/slow")) setTimeout(() => res.writeHead(204).end(), 300);
      else if (redirect) {
        const n = Number(redirect[1]);
        res.writeHead(307, { location: n > 1 ? `/redirect/${n - 1}` : "/ok" }).end();
      } else if (flaky) {
        const op = String(req.headers["x-hook-operation-id"]);
        const count = (seen.get(op) ?? 0) + 1;
        seen.set(op, count);
        res.writeHead(count <= Number(flaky[1]) ? 500 : 204).end();
      } else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async waitFor(count, timeoutMs = 10_000, predicate = () => true) {
      const deadline = Date.now() + timeoutMs;
      while (requests.filter(predicate).length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${requests.filter(predicate).length} of ${count} requests`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return requests.filter(predicate);
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
