import { createHash, randomInt, randomUUID } from "node:crypto";
import { Readability } from "@mozilla/readability";
import Handlebars from "handlebars";
import { convert } from "html-to-text";
import { parseHTML } from "linkedom";
import { marked } from "marked";
import sanitizeHtml from "sanitize-html";
import Sentiment from "sentiment";
import { isFileRecordShape } from "../files/file-record";
import { MAX_TEXT_BYTES, processorTimeoutMs } from "./processor-limits";
import { runTextJob, TextJobTimedOut, TextJobTooDeep, type TextJob } from "./text-work";
import { ProducedFile, type ProcessorCall, type ProcessorKind, type ProcessorSpec } from "./processor-types";
import { canonicalJson } from "../query/json-values";

/** What the text thread runs (lib/processors/text-work.ts), by kind. */
export const TEXT_TRANSFORMS: Record<TextJob["kind"], (input: string) => unknown> = {
  markdown: (text) => sanitizeHtml(marked.parse(text, { async: false, gfm: true }), SANITIZE),
  html_to_text: (html) => convert(html, TEXT_OPTIONS),
  readability: (html) => extractReadable(html),
};

/** A transform on the text thread, within the processor time limit: 502 past it, 422 for input nested too deeply. */
export async function transformed<T = string>(call: ProcessorCall, job: TextJob): Promise<T> {
  try {
    return await runTextJob<T>(job, processorTimeoutMs());
  } catch (error) {
    if (error instanceof TextJobTooDeep) throw call.invalid(`${call.name}: the input is nested too deeply`);
    if (error instanceof TextJobTimedOut) throw call.vendorFailed("timed out");
    throw call.vendorFailed((error as Error).message);
  }
}

/** The text kinds of CONTRACT §7, all computed locally. */

export const md5: ProcessorKind = {
  output: ["string"],
  args: ["text"],
  source: "text",
  async run(call) {
    const value = call.args.text;
    // A file (a stored record or an earlier output): the digest of its bytes, streamed.
    if (isFileRecordShape(value) || value instanceof ProducedFile) {
      const hash = createHash("md5");
      for await (const chunk of await (await call.file("text")).open()) hash.update(chunk as Buffer);
      return hash.digest("hex");
    }
    if (value === undefined || value === null) return null;
    // Any other value: its JSON with object keys sorted, so equal values digest alike whatever
    // order a client wrote their keys in (the stored copy keeps no order of its own either).
    const text = typeof value === "string" ? value : canonicalJson(value);
    if (Buffer.byteLength(text) > MAX_TEXT_BYTES) throw call.invalid("md5: the text is larger than 1 MiB");
    return createHash("md5").update(text).digest("hex");
  },
};

const RANDOM_TYPES = ["string", "integer", "uuid"];
const ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

export const random: ProcessorKind = {
  output: ["string", "number"],
  outputOf(spec) {
    const given = spec.in.random_type;
    if (!given) return ["string"];
    if ("value" in given) return given.value === "integer" ? ["number"] : ["string"];
    return this.output;
  },
  args: ["random_type", "length"],
  check(spec) {
    return literalCheck(spec, "random_type", (v) => typeof v === "string" && RANDOM_TYPES.includes(v), `must be one of ${RANDOM_TYPES.join(", ")}`) ??
      literalCheck(spec, "length", (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 1024, "must be a whole number from 1 to 1024");
  },
  async run(call) {
    const type = call.args.random_type ?? "string";
    const length = call.args.length ?? (type === "integer" ? 9 : 32);
    if (typeof type !== "string" || !RANDOM_TYPES.includes(type)) throw call.invalid(`random: random_type must be one of ${RANDOM_TYPES.join(", ")}`);
    if (!Number.isInteger(length) || (length as number) < 1 || (length as number) > 1024) throw call.invalid("random: length must be a whole number from 1 to 1024");
    const n = length as number;
    if (type === "uuid") return randomUUID();
    if (type === "integer") {
      // `length` digits, kept within JSON's safe integers; digit by digit (randomInt's range stops at 2^48).
      const digits = Math.min(n, 15);
      if (digits === 1) return randomInt(10);
      let text = String(randomInt(1, 10));
      while (text.length < digits) text += String(randomInt(10));
      return Number(text);
    }
    let out = "";
    for (let i = 0; i < n; i++) out += ALPHABET[randomInt(ALPHABET.length)];
    return out;
  },
};

/**
 * One Handlebars environment of our own (never the global one a library could register helpers
 * on). `knownHelpersOnly`: only the built-in block helpers (if, each, with, unless, lookup), so a
 * document value can never be called as a helper. HTML escaping stays on (Handlebars' default,
 * `{{{raw}}}` opts out): templates usually build text shown in pages. Prototype properties and
 * methods are refused at run time (`allowProto*ByDefault: false`, and no per-name allowances).
 */
const handlebars = Handlebars.create();
/** `log` is built in and would write a document's values to the server's console. */
const NO_LOG = { log: false } as unknown as Record<string, true>;
handlebars.unregisterHelper("log");
const compiled = new Map<string, HandlebarsTemplateDelegate>();

/**
 * A render runs on the event loop and cannot be interrupted: nested `{{#each}}` blocks over a
 * document's arrays multiply (three levels over 300 items held every project's requests for 4 s,
 * and the output limit was only checked at the end). `each` is therefore wrapped to count, for
 * the render in progress, the iterations (at most MAX_ITERATIONS) and the text its blocks make
 * (at most MAX_TEXT_BYTES): past either, the render stops with an error.
 */
const MAX_ITERATIONS = 100_000;
/**
 * Iterations times the template's `{{...}}`: empty lookups make no output but cost time (1,000
 * `{{q}}` in an `{{#each}}` over 100,000 items held every project's requests for 4.5 s).
 */
const MAX_RENDER_STEPS = 2_000_000;
/** A template is compiled on the event loop too (~12 µs a character: 660 KB took 8 s). */
export const MAX_TEMPLATE_CHARS = 10_000;
const renderBudget = { iterations: 0, chars: 0, steps: 0, weight: 1 };
class RenderTooLarge extends Error {}
const builtInEach = handlebars.helpers.each as Handlebars.HelperDelegate;
handlebars.registerHelper("each", function (this: unknown, context: unknown, options: Handlebars.HelperOptions) {
  const items = Array.isArray(context) ? context.length : context && typeof context === "object" ? Object.keys(context).length : 0;
  renderBudget.iterations += items;
  if (renderBudget.iterations > MAX_ITERATIONS) throw new RenderTooLarge(`more than ${MAX_ITERATIONS} {{#each}} iterations`);
  renderBudget.steps += items * renderBudget.weight;
  if (renderBudget.steps > MAX_RENDER_STEPS) throw new RenderTooLarge(`more than ${MAX_RENDER_STEPS} steps ({{#each}} iterations times the template's {{...}})`);
  const fn = options.fn;
  const counted = Object.assign((scope: unknown, more?: Handlebars.RuntimeOptions) => {
    const text = fn(scope, more);
    renderBudget.chars += text.length;
    if (renderBudget.chars > MAX_TEXT_BYTES) throw new RenderTooLarge("the output is larger than 1 MiB");
    return text;
  }, fn);
  return builtInEach.call(this, context, { ...options, fn: counted });
});

export const template: ProcessorKind = {
  output: ["string"],
  args: ["template_string", "syntax", "context"],
  required: ["template_string"],
  check(spec) {
    return (
      literalCheck(spec, "syntax", (v) => v === "handlebars", 'must be "handlebars"') ??
      literalCheck(spec, "template_string", (v) => typeof v === "string" && v.length <= MAX_TEMPLATE_CHARS, `must be a text of at most ${MAX_TEMPLATE_CHARS} characters`) ??
      literalCheck(spec, "template_string", (v) => typeof v === "string" && compiles(v), "must be a valid handlebars template")
    );
  },
  async run(call) {
    const source = call.text("template_string", { required: true })!;
    if (source.length > MAX_TEMPLATE_CHARS) throw call.invalid(`template: the template is longer than ${MAX_TEMPLATE_CHARS} characters`);
    if (call.args.syntax !== undefined && call.args.syntax !== "handlebars") throw call.invalid('template: syntax must be "handlebars"');
    const context = call.args.context ?? {};
    if (Buffer.byteLength(JSON.stringify(context)) > MAX_TEXT_BYTES) throw call.invalid("template: the context is larger than 1 MiB");
    let render = compiled.get(source);
    try {
      if (!render) {
        render = handlebars.compile(source, { knownHelpersOnly: true, knownHelpers: NO_LOG, strict: false });
        if (compiled.size >= 500) compiled.delete(compiled.keys().next().value!);
        compiled.set(source, render);
      }
      renderBudget.iterations = 0;
      renderBudget.chars = 0;
      renderBudget.steps = 0;
      renderBudget.weight = Math.max(1, source.split("{{").length - 1);
      const out = render(context, { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false });
      if (Buffer.byteLength(out) > MAX_TEXT_BYTES) throw call.invalid("template: the output is larger than 1 MiB");
      return out;
    } catch (error) {
      if ((error as Error).name === "AppError") throw error;
      throw call.invalid(`template: ${(error as Error).message.split("\n")[0]}`);
    }
  },
};

function compiles(source: string): boolean {
  try {
    handlebars.precompile(source, { knownHelpersOnly: true, knownHelpers: NO_LOG });
    return true;
  } catch {
    return false;
  }
}

/** Sanitized HTML: no script/style, no event handlers, only http(s)/mailto/tel links and images. */
const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, "img", "h1", "h2", "del", "input"],
  allowedAttributes: {
    a: ["href", "title"],
    img: ["src", "alt", "title", "width", "height"],
    code: ["class"],
    input: ["type", "checked", "disabled"],
    th: ["align"],
    td: ["align"],
    ol: ["start"],
  },
  allowedSchemes: ["http", "https", "mailto", "tel"],
  allowedSchemesByTag: { img: ["http", "https", "data"] },
  allowProtocolRelative: false,
};

export const markdown: ProcessorKind = {
  output: ["string"],
  args: ["text"],
  source: "text",
  async run(call) {
    const text = call.text("text");
    if (text === undefined) return null;
    return transformed(call, { kind: "markdown", input: text });
  },
};

/**
 * Plain text as a reader would write it: headings keep their case (html-to-text upper-cases them
 * by default) and a table's cells stay apart in columns (by default they ran together:
 * "NameQtyApple3"). No wrapping: the text is stored, not printed.
 */
const TEXT_OPTIONS = {
  wordwrap: false as const,
  selectors: [
    ...["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: "table", format: "dataTable", options: { uppercaseHeaderCells: false } },
  ],
};

export const htmlToText: ProcessorKind = {
  output: ["string"],
  args: ["html"],
  source: "html",
  async run(call) {
    const html = call.text("html");
    if (html === undefined) return null;
    return transformed(call, { kind: "html_to_text", input: html });
  },
};

/** Reader-mode extraction (Firefox's Readability over linkedom's DOM); `content` sanitized like markdown's output. */
export function extractReadable(html: string): { content: string; title: string; short_title: string; excerpt: string; word_count: number } {
  // Text without any element (linkedom gives no root for it) is read as the body of a page.
  let { document } = parseHTML(html);
  if (!document.documentElement) ({ document } = parseHTML(`<!DOCTYPE html><html><head></head><body>${html}</body></html>`));
  const title = (document.title || "").trim();
  const article = new Readability(document as unknown as Document).parse();
  const content = sanitizeHtml(article?.content ?? "", SANITIZE);
  const text = convert(content, TEXT_OPTIONS);
  const articleTitle = (article?.title || title).trim();
  return {
    content,
    title: articleTitle,
    short_title: shortTitle(articleTitle),
    excerpt: (article?.excerpt ?? "").trim(),
    word_count: text.split(/\s+/).filter(Boolean).length,
  };
}

/** "Article - Site name" gives "Article" (the part before the last separator, when it is long enough). */
function shortTitle(title: string): string {
  const parts = title.split(/\s+[|\-–—:»·]\s+/);
  if (parts.length < 2) return title;
  const first = parts.slice(0, -1).join(" - ").trim();
  return first.split(/\s+/).length >= 2 || first.length >= 8 ? first : title;
}

export const readability: ProcessorKind = {
  output: ["object"],
  args: ["text"],
  source: "text",
  async run(call) {
    const html = call.text("text");
    if (html === undefined) return null;
    const { content, title, short_title } = await transformed<ReturnType<typeof extractReadable>>(call, { kind: "readability", input: html });
    return { content, title, short_title };
  },
};

const sentimentAnalyzer = new Sentiment();

/** The AFINN-165 score (sum of word valences): negative to positive, 0 for neutral text. */
export const sentiment: ProcessorKind = {
  output: ["number"],
  args: ["text"],
  source: "text",
  async run(call) {
    const text = call.text("text");
    if (text === undefined) return null;
    return sentimentAnalyzer.analyze(text).score;
  },
};

type LanguageDetector = { detect(text: string): { language: string } };
let detector: Promise<LanguageDetector> | undefined;

/**
 * Local detection (ELD, n-gram based): an ISO 639-1 code, or null when the text says too little.
 * ELD's n-gram tables take ~58 MiB of heap, two thirds of the server's: loaded on first use,
 * not at start. Every full garbage collection marks the whole heap, so a server that never
 * detects a language should not carry them.
 */
export async function detectLanguageLocally(text: string): Promise<string | null> {
  detector ??= import("eld/medium").then((module) => module.eld as LanguageDetector);
  return (await detector).detect(text).language || null;
}

/** A check of an argument's literal value (a `property` argument is checked when it runs). */
export function literalCheck(spec: ProcessorSpec, arg: string, ok: (value: unknown) => boolean, message: string): string | undefined {
  const given = spec.in[arg];
  if (given && "value" in given && !ok(given.value)) return `argument "${arg}" ${message}`;
  return undefined;
}

export type { ProcessorCall };
