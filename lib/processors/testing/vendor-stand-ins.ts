import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * One local HTTP server that speaks each processor vendor's documented wire format, for tests
 * and benchmarks (the real vendors need keys and the internet):
 *   POST /v1/chat/completions                OpenAI-compatible chat completions (apiai)
 *   POST /language/translate/v2/detect?key=  Google Cloud Translation v2 detect
 *   POST /language/translate/v2?key=         Google Cloud Translation v2 translate
 *   POST /translate/v2/translate             Yandex Cloud Translate v2 translate
 *   POST /translate/v2/detect                Yandex Cloud Translate v2 detect
 *   POST /speech/v1/tts:synthesize           Yandex SpeechKit v1 (form-encoded; audio answer)
 *   GET  /pages/article, /pages/redirect/<n>, /pages/loop   pages for readability_com
 * Requests are recorded (method, path, query, headers, body) so tests can check their shape.
 * Answers check the credentials the vendor wants and refuse malformed bodies as it would (400).
 */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface VendorStandIns {
  url: string;
  requests: RecordedRequest[];
  /** Every answer waits this long first (timeouts). */
  delayMs: number;
  /** Set: every answer waits for it (requests held in flight until the test lets them go). */
  gate?: Promise<void>;
  /** The next answers are this status with an error body (vendor failures). */
  failWith: number | undefined;
  /** The next answers are 200 with an HTML page (a proxy's or captive portal's, in place of the vendor's). */
  htmlPage?: boolean;
  close(): Promise<void>;
}

export const STAND_IN_KEY = "test-key-123";
export const ARTICLE_TITLE = "Tides of the Baltic - Coast Review";

export async function startVendorStandIns(): Promise<VendorStandIns> {
  const state: VendorStandIns = { url: "", requests: [], delayMs: 0, failWith: undefined, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", async () => {
      const url = new URL(req.url ?? "/", "http://stand-in");
      const body = Buffer.concat(chunks).toString("utf8");
      state.requests.push({ method: req.method ?? "", path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body });
      if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
      if (state.gate) await state.gate;
      if (res.destroyed) return;
      if (state.failWith) return json(res, state.failWith, { error: { code: state.failWith, message: "stand-in failure" } });
      if (state.htmlPage) return void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>Sign in to the network</title>");
      try {
        route(req, res, url, body);
      } catch {
        json(res, 400, { error: { code: 400, message: "Invalid JSON payload received." } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

function route(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: string): void {
  const auth = req.headers.authorization ?? "";
  const key = url.searchParams.get("key");
  const path = url.pathname;
  if (req.method === "POST" && path === "/v1/chat/completions") {
    if (auth !== `Bearer ${STAND_IN_KEY}`) return json(res, 401, { error: { message: "Incorrect API key provided", type: "invalid_request_error" } });
    const request = JSON.parse(body);
    if (typeof request.model !== "string" || !Array.isArray(request.messages)) return json(res, 400, { error: { message: "model and messages are required" } });
    const user = request.messages.findLast((m: { role: string }) => m.role === "user");
    return json(res, 200, {
      id: "chatcmpl-standin",
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      choices: [{ index: 0, message: { role: "assistant", content: `You said: ${user?.content}` }, finish_reason: "stop" }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  }
  if (req.method === "POST" && path === "/language/translate/v2/detect") {
    if (key !== STAND_IN_KEY) return json(res, 400, { error: { code: 400, message: "API key not valid. Please pass a valid API key.", status: "INVALID_ARGUMENT" } });
    const { q } = JSON.parse(body);
    if (typeof q !== "string") return json(res, 400, { error: { code: 400, message: "Required Text" } });
    return json(res, 200, { data: { detections: [[{ language: /[а-я]/i.test(q) ? "ru" : "de", isReliable: false, confidence: 0.98 }]] } });
  }
  if (req.method === "POST" && path === "/language/translate/v2") {
    if (key !== STAND_IN_KEY) return json(res, 400, { error: { code: 400, message: "API key not valid. Please pass a valid API key.", status: "INVALID_ARGUMENT" } });
    const { q, source, target, format } = JSON.parse(body);
    if (typeof q !== "string" || typeof target !== "string") return json(res, 400, { error: { code: 400, message: "Required Target language" } });
    return json(res, 200, { data: { translations: [{ translatedText: `[${source ?? "auto"}>${target}:${format}] ${q}`, ...(source ? {} : { detectedSourceLanguage: "en" }) }] } });
  }
  if (req.method === "POST" && path === "/translate/v2/translate") {
    if (auth !== `Api-Key ${STAND_IN_KEY}`) return json(res, 401, { code: 16, message: "Unknown api key" });
    const { texts, sourceLanguageCode, targetLanguageCode } = JSON.parse(body);
    if (!Array.isArray(texts) || typeof targetLanguageCode !== "string") return json(res, 400, { code: 3, message: "texts and targetLanguageCode required" });
    return json(res, 200, { translations: texts.map((text: string) => ({ text: `[${sourceLanguageCode}>${targetLanguageCode}] ${text}`, detectedLanguageCode: sourceLanguageCode ?? "ru" })) });
  }
  if (req.method === "POST" && path === "/translate/v2/detect") {
    if (auth !== `Api-Key ${STAND_IN_KEY}`) return json(res, 401, { code: 16, message: "Unknown api key" });
    const { text } = JSON.parse(body);
    if (typeof text !== "string") return json(res, 400, { code: 3, message: "text required" });
    return json(res, 200, { languageCode: /[а-я]/i.test(text) ? "ru" : "en" });
  }
  if (req.method === "POST" && path === "/speech/v1/tts:synthesize") {
    if (auth !== `Api-Key ${STAND_IN_KEY}`) return json(res, 401, { error_code: "UNAUTHORIZED", error_message: "Unknown api key" });
    if (!String(req.headers["content-type"]).startsWith("application/x-www-form-urlencoded")) return json(res, 400, { error_code: "BAD_REQUEST" });
    const form = new URLSearchParams(body);
    if (!form.get("text")) return json(res, 400, { error_code: "BAD_REQUEST", error_message: "text is required" });
    const format = form.get("format") ?? "oggopus";
    res.writeHead(200, { "content-type": "audio/" + (format === "mp3" ? "mpeg" : format === "lpcm" ? "x-pcm" : "ogg") });
    if (format === "lpcm") {
      // 0.1 s of a 440 Hz tone, 16-bit little-endian mono at the requested rate.
      const rate = Number(form.get("sampleRateHertz") ?? 48000);
      const pcm = Buffer.alloc((rate / 10) * 2);
      for (let i = 0; i < rate / 10; i++) pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2);
      return void res.end(pcm);
    }
    if (format === "mp3") return void res.end(Buffer.concat([Buffer.from("ID3\x04\x00\x00\x00\x00\x00\x00", "latin1"), Buffer.alloc(256, 0x55)]));
    return void res.end(Buffer.concat([Buffer.from("OggS\x00\x02", "latin1"), Buffer.alloc(256, 1)]));
  }
  if (req.method === "GET" && path === "/pages/article") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    return void res.end(
      `<html><head><title>${ARTICLE_TITLE}</title></head><body><nav>Menu</nav><article><h1>Tides of the Baltic</h1>` +
        "<p>The Baltic sea has almost no tides, and its water is brackish, a mix of salt and fresh water from many rivers. </p>".repeat(8) +
        "</article><script>steal()</script></body></html>",
    );
  }
  const hop = /^\/pages\/redirect\/(\d+)$/.exec(path);
  if (req.method === "GET" && hop) {
    const left = Number(hop[1]);
    res.writeHead(302, { location: left > 1 ? `/pages/redirect/${left - 1}` : "/pages/article" });
    return void res.end();
  }
  if (req.method === "GET" && path === "/pages/image") {
    res.writeHead(200, { "content-type": "image/png" });
    return void res.end(Buffer.alloc(10));
  }
  json(res, 404, { error: "not found" });
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
