import http from "node:http";

/**
 * A minimal Server-Sent Events client for tests (what EventSource does, over node:http so many
 * can be open at once): parses `id`, `event`, `data` frames and comments as they arrive.
 */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

export interface SseConnection {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: SseEvent[];
  comments: string[];
  /** The last `id:` seen (what EventSource would send as Last-Event-ID). */
  lastEventId: string | undefined;
  body: string;
  waitFor(count: number, timeoutMs?: number): Promise<SseEvent[]>;
  close(): void;
  closed: Promise<void>;
}

export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: "text/event-stream", ...headers } }, (res) => {
      let buffer = "";
      let frame: { id?: string; event?: string; data: string[] } = { data: [] };
      let closedResolve!: () => void;
      const connection: SseConnection = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events: [],
        comments: [],
        lastEventId: undefined,
        body: "",
        async waitFor(count, timeoutMs = 10_000) {
          const deadline = Date.now() + timeoutMs;
          while (connection.events.length < count) {
            if (Date.now() > deadline) throw new Error(`got ${connection.events.length} of ${count} events: ${JSON.stringify(connection.events)}`);
            await new Promise((r) => setTimeout(r, 10));
          }
          return connection.events;
        },
        close() {
          req.destroy();
        },
        closed: new Promise<void>((r) => (closedResolve = r)),
      };
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        connection.body += chunk;
        if (connection.status !== 200) return;
        buffer += chunk;
        let newline: number;
        while ((newline = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, newline).replace(/\r$/, "");
          buffer = buffer.slice(newline + 1);
          if (line === "") {
            if (frame.id !== undefined) connection.lastEventId = frame.id;
            if (frame.data.length) connection.events.push({ id: frame.id, event: frame.event ?? "message", data: frame.data.join("\n") });
            frame = { data: [] };
          } else if (line.startsWith(":")) connection.comments.push(line.slice(1).trim());
          else {
            const colon = line.indexOf(":");
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
            if (field === "id") frame.id = value;
            else if (field === "event") frame.event = value;
            else if (field === "data") frame.data.push(value);
          }
        }
      });
      res.on("close", () => closedResolve());
      res.on("error", () => closedResolve());
      resolve(connection);
    });
    req.on("error", reject);
  });
}
