import { MAX_TEXT_BYTES } from "./processor-limits";
import type { ProcessorCall, ProcessorKind } from "./processor-types";
import { stringArg } from "./speech-processors";
import { detectLanguageLocally, type extractReadable, literalCheck, transformed } from "./text-processors";
import { vendorBase, vendorJson, vendorRequest } from "./vendor-request";

/**
 * The kinds that call a vendor (CONTRACT §7), each on the vendor's documented wire format, with
 * its base URL configurable (ARCA_VENDOR_<NAME>_URL) so tests and air-gapped installs can point
 * them at stand-ins. Keys travel in headers or the query string as the vendor wants them, and
 * are never put in an error message.
 */

/** `apiai` on an OpenAI-compatible chat-completions endpoint, answered in Dialogflow v1's shape. */
export const apiai: ProcessorKind = {
  output: ["object"],
  args: ["text", "language", "timezone", "contexts", "base_url", "api_key", "subscription_key", "language_token", "model"],
  source: "text",
  check(spec) {
    if (!spec.in.api_key && !spec.in.subscription_key && !spec.in.language_token) return 'argument "api_key" is required';
    return literalCheck(spec, "base_url", (v) => typeof v === "string" && /^https?:\/\//.test(v), "must be an http(s) URL");
  },
  async run(call) {
    const text = call.text("text");
    if (text === undefined) return null;
    const key = stringArg(call, "api_key") ?? stringArg(call, "subscription_key") ?? stringArg(call, "language_token");
    if (!key) throw call.invalid("apiai: api_key is required");
    const baseArg = stringArg(call, "base_url");
    const base = (baseArg ?? vendorBase("APIAI", "https://api.openai.com/v1")).replace(/\/+$/, "");
    const url = parseUrl(call, `${base}/chat/completions`, "base_url");
    const contexts = call.args.contexts ?? [];
    const system = [
      "You are the conversational agent of an application. Answer the user briefly.",
      stringArg(call, "language") ? `Answer in the language ${stringArg(call, "language")}.` : "",
      stringArg(call, "timezone") ? `The user's time zone is ${stringArg(call, "timezone")}.` : "",
      Array.isArray(contexts) && contexts.length ? `Conversation contexts: ${JSON.stringify(contexts)}.` : "",
    ]
      .filter(Boolean)
      .join(" ");
    const answer = await vendorJson(call, url, {
      headers: { authorization: `Bearer ${key}` },
      json: {
        model: stringArg(call, "model") ?? "gpt-4o-mini",
        messages: [
          { role: "system", content: system },
          { role: "user", content: text },
        ],
      },
      userUrl: baseArg !== undefined,
    });
    const speech = answer?.choices?.[0]?.message?.content;
    if (typeof speech !== "string") throw call.vendorFailed("the answer has no choices[0].message.content");
    return { resolvedQuery: text, speech, action: "", parameters: {}, contexts: Array.isArray(contexts) ? contexts : [] };
  },
};

/** Google Cloud Translation v2 `detect`, or the local detector without an api_key. */
export const googleDetectLanguage: ProcessorKind = {
  output: ["string"],
  args: ["text", "api_key"],
  source: "text",
  async run(call) {
    const text = call.text("text");
    if (text === undefined) return null;
    const key = stringArg(call, "api_key");
    if (!key) return detectLanguageLocally(text);
    const url = new URL(`${vendorBase("GOOGLE", "https://translation.googleapis.com")}/language/translate/v2/detect`);
    url.searchParams.set("key", key);
    const answer = await vendorJson(call, url, { json: { q: text } });
    const language = answer?.data?.detections?.[0]?.[0]?.language;
    if (typeof language !== "string") throw call.vendorFailed("the answer has no data.detections[0][0].language");
    return language;
  },
};

/** Google Cloud Translation v2 `translate` (format text). */
export const googleTranslate: ProcessorKind = {
  output: ["string"],
  args: ["text", "from", "to", "api_key"],
  required: ["to", "api_key"],
  source: "text",
  async run(call) {
    const text = call.text("text");
    if (text === undefined) return null;
    const key = stringArg(call, "api_key");
    const to = stringArg(call, "to");
    if (!key) throw call.invalid("google_translate: api_key is required");
    if (!to) throw call.invalid("google_translate: to is required");
    const url = new URL(`${vendorBase("GOOGLE", "https://translation.googleapis.com")}/language/translate/v2`);
    url.searchParams.set("key", key);
    const body: Record<string, string> = { q: text, target: to, format: "text" };
    const from = stringArg(call, "from");
    if (from) body.source = from;
    const answer = await vendorJson(call, url, { json: body });
    const translated = answer?.data?.translations?.[0]?.translatedText;
    if (typeof translated !== "string") throw call.vendorFailed("the answer has no data.translations[0].translatedText");
    return translated;
  },
};

/** Yandex Cloud Translate v2 `translate`; `lang` is "<from>-<to>" or just "<to>". */
export const yandexTranslate: ProcessorKind = {
  output: ["string"],
  args: ["text", "lang", "api_key"],
  required: ["lang", "api_key"],
  source: "text",
  check: (spec) => literalCheck(spec, "lang", (v) => typeof v === "string" && LANG_PAIR.test(v), 'must look like "ru-en"'),
  async run(call) {
    const text = call.text("text");
    if (text === undefined) return null;
    const key = stringArg(call, "api_key");
    const lang = stringArg(call, "lang");
    if (!key) throw call.invalid("yandex_translate: api_key is required");
    if (!lang || !LANG_PAIR.test(lang)) throw call.invalid('yandex_translate: lang must look like "ru-en"');
    const [from, to] = lang.includes("-") ? lang.split("-") : [undefined, lang];
    const body: Record<string, unknown> = { texts: [text], targetLanguageCode: to };
    if (from) body.sourceLanguageCode = from;
    const answer = await vendorJson(call, new URL(`${vendorBase("YANDEX_TRANSLATE", "https://translate.api.cloud.yandex.net")}/translate/v2/translate`), {
      headers: { authorization: `Api-Key ${key}` },
      json: body,
    });
    const translated = answer?.translations?.[0]?.text;
    if (typeof translated !== "string") throw call.vendorFailed("the answer has no translations[0].text");
    return translated;
  },
};

const LANG_PAIR = /^[a-z]{2,3}(-[a-z]{2,3})?$/i;

/** Yandex Cloud Translate v2 `detect`, or the local detector without an api_key. */
export const yandexDetectLanguage: ProcessorKind = {
  output: ["string"],
  args: ["text", "api_key"],
  source: "text",
  async run(call) {
    const text = call.text("text");
    if (text === undefined) return null;
    const key = stringArg(call, "api_key");
    if (!key) return detectLanguageLocally(text);
    const answer = await vendorJson(call, new URL(`${vendorBase("YANDEX_TRANSLATE", "https://translate.api.cloud.yandex.net")}/translate/v2/detect`), {
      headers: { authorization: `Api-Key ${key}` },
      json: { text },
    });
    const language = answer?.languageCode;
    if (typeof language !== "string") throw call.vendorFailed("the answer has no languageCode");
    return language;
  },
};

/**
 * `readability_com`: the Readability.com parser API is gone, so the page is fetched here
 * (guarded, redirects followed hop by hop, at most 5) and extracted locally.
 */
export const readabilityCom: ProcessorKind = {
  output: ["object"],
  args: ["url", "api_key"],
  source: "url",
  async run(call) {
    const address = stringArg(call, "url");
    if (address === undefined) return null;
    const url = parseUrl(call, address, "url");
    const page = await vendorRequest(call, url, { method: "GET", headers: { accept: "text/html,application/xhtml+xml" }, userUrl: true, followRedirects: true });
    if (page.status < 200 || page.status >= 300) throw call.vendorFailed(`the page answered ${page.status}`);
    if (!/html|xml/i.test(page.contentType)) throw call.invalid(`readability_com: the page is not HTML (${page.contentType || "no content type"})`);
    if (page.body.length > MAX_TEXT_BYTES * 5) throw call.invalid("readability_com: the page is larger than 5 MiB");
    const extracted = await transformed<ReturnType<typeof extractReadable>>(call, { kind: "readability", input: page.body.toString("utf8") });
    return { ...extracted, url: page.url.toString(), domain: page.url.hostname };
  },
};

function parseUrl(call: ProcessorCall, value: string, arg: string): URL {
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return url;
  } catch {
    // reported below
  }
  throw call.invalid(`${call.name}: ${arg} must be an http(s) URL`);
}
