/**
 * The processor kinds as the dashboard's forms describe them (CONTRACT §7): each argument with
 * the input it needs. Pure data, safe in the browser; lib/processors/processor-catalog.test.ts
 * keeps it in step with the server's registry (same kinds, same argument names, same required
 * ones, same source).
 */
export type ArgumentInput =
  | { type: "text"; multiline?: boolean }
  | { type: "number"; min?: number; max?: number }
  | { type: "enum"; options: string[] }
  | { type: "size" }
  | { type: "file" }
  | { type: "secret" }
  | { type: "json" };

export interface ArgumentDescription {
  name: string;
  label: string;
  input: ArgumentInput;
  /** Only `{"property": ...}` makes sense (files of the document). */
  propertyOnly?: boolean;
  /** Only `{"value": ...}` makes sense (keys, options). */
  valueOnly?: boolean;
}

export interface KindDescription {
  name: string;
  label: string;
  output: string;
  /** The argument that defaults to the property's own value. */
  source?: string;
  required: string[];
  /** Arguments a new step starts with besides the required ones: one of several aliases is required (apiai's key). */
  prefilled?: string[];
  args: ArgumentDescription[];
}

const text = (name: string, label = name, multiline = true): ArgumentDescription => ({ name, label, input: { type: "text", multiline } });
const secret = (name: string, label = name): ArgumentDescription => ({ name, label, input: { type: "secret" }, valueOnly: true });
const choice = (name: string, options: string[], label = name): ArgumentDescription => ({ name, label, input: { type: "enum", options }, valueOnly: true });
const GRAVITIES = ["NorthWest", "North", "NorthEast", "West", "Center", "East", "SouthWest", "South", "SouthEast"];

export const PROCESSOR_KINDS: KindDescription[] = [
  { name: "md5", label: "MD5 digest", output: "hex string", source: "text", required: [], args: [text("text")] },
  {
    name: "random",
    label: "Random value",
    output: "string, integer or UUID",
    required: [],
    args: [choice("random_type", ["string", "integer", "uuid"], "type"), { name: "length", label: "length", input: { type: "number", min: 1, max: 1024 }, valueOnly: true }],
  },
  {
    name: "template",
    label: "Template (Handlebars)",
    output: "string",
    required: ["template_string"],
    args: [text("template_string", "template"), choice("syntax", ["handlebars"]), { name: "context", label: "context (object of arguments)", input: { type: "json" }, valueOnly: true }],
  },
  { name: "markdown", label: "Markdown to HTML", output: "sanitized HTML", source: "text", required: [], args: [text("text")] },
  { name: "html_to_text", label: "HTML to text", output: "plain text", source: "html", required: [], args: [text("html")] },
  { name: "readability", label: "Reader mode (HTML page)", output: "{content, title, short_title}", source: "text", required: [], args: [text("text", "page HTML")] },
  { name: "sentiment", label: "Sentiment", output: "number", source: "text", required: [], args: [text("text")] },
  {
    name: "resize",
    label: "Resize image",
    output: "image file",
    source: "original_image",
    required: ["size"],
    args: [{ name: "original_image", label: "image", input: { type: "file" }, propertyOnly: true }, { name: "size", label: "size [width, height]", input: { type: "size" }, valueOnly: true }],
  },
  {
    name: "watermark",
    label: "Watermark image",
    output: "image file",
    source: "original_image",
    required: ["watermark_image"],
    args: [
      { name: "original_image", label: "image", input: { type: "file" }, propertyOnly: true },
      { name: "watermark_image", label: "watermark", input: { type: "file" }, propertyOnly: true },
      choice("gravity", GRAVITIES),
      { name: "opacity", label: "opacity (0 to 1)", input: { type: "number", min: 0, max: 1 }, valueOnly: true },
      { name: "url", label: "url (refused: use a watermark file)", input: { type: "text", multiline: false }, valueOnly: true },
    ],
  },
  {
    name: "text_to_speech",
    label: "Text to speech (local)",
    output: "audio file",
    source: "text",
    required: [],
    args: [text("text"), { name: "language", label: "language", input: { type: "text", multiline: false } }, choice("format", ["wav", "mp3"]), choice("engine", ["local"])],
  },
  {
    name: "yandex_speechkit_tts",
    label: "Yandex SpeechKit",
    output: "audio file",
    source: "text",
    required: [],
    args: [
      text("text"),
      choice("format", ["wav", "mp3", "opus"]),
      { name: "language", label: "language", input: { type: "text", multiline: false } },
      { name: "speaker", label: "speaker", input: { type: "text", multiline: false } },
      { name: "emotion", label: "emotion", input: { type: "text", multiline: false } },
      secret("api_key", "API key (empty: local engine)"),
      choice("engine", ["local", "yandex"]),
    ],
  },
  {
    name: "apiai",
    label: "Chat agent (OpenAI-compatible)",
    output: "{resolvedQuery, speech, action, parameters, contexts}",
    source: "text",
    required: [],
    prefilled: ["api_key"],
    args: [
      text("text"),
      { name: "language", label: "language", input: { type: "text", multiline: false } },
      { name: "timezone", label: "timezone", input: { type: "text", multiline: false } },
      { name: "contexts", label: "contexts", input: { type: "json" } },
      { name: "base_url", label: "base URL", input: { type: "text", multiline: false }, valueOnly: true },
      secret("api_key", "API key"),
      secret("subscription_key"),
      secret("language_token"),
      { name: "model", label: "model", input: { type: "text", multiline: false }, valueOnly: true },
    ],
  },
  { name: "google_detect_language", label: "Detect language (Google or local)", output: "language code", source: "text", required: [], args: [text("text"), secret("api_key", "API key (empty: local)")] },
  { name: "yandex_detect_language", label: "Detect language (Yandex or local)", output: "language code", source: "text", required: [], args: [text("text"), secret("api_key", "API key (empty: local)")] },
  {
    name: "google_translate",
    label: "Translate (Google)",
    output: "string",
    source: "text",
    required: ["to", "api_key"],
    args: [text("text"), { name: "from", label: "from", input: { type: "text", multiline: false } }, { name: "to", label: "to", input: { type: "text", multiline: false } }, secret("api_key", "API key")],
  },
  {
    name: "yandex_translate",
    label: "Translate (Yandex)",
    output: "string",
    source: "text",
    required: ["lang", "api_key"],
    args: [text("text"), { name: "lang", label: "lang (ru-en)", input: { type: "text", multiline: false } }, secret("api_key", "API key")],
  },
  {
    name: "readability_com",
    label: "Fetch and extract a page",
    output: "object",
    source: "url",
    required: [],
    args: [{ name: "url", label: "page URL", input: { type: "text", multiline: false } }, secret("api_key", "API key (ignored)")],
  },
];

export const processorKind = (name: string): KindDescription | undefined => PROCESSOR_KINDS.find((k) => k.name === name);

/** One processor as a schema stores it. */
export interface ProcessorValue {
  name: string;
  in?: Record<string, { property: string } | { value: unknown } | Record<string, unknown>>;
}

export type ArgumentMode = "default" | "property" | "value";
type Argument = NonNullable<ProcessorValue["in"]>[string];

/** The ways an argument may be given: not set (unless required), another property, a literal. */
export function argumentModes(arg: ArgumentDescription, required: boolean): ArgumentMode[] {
  return [...(required ? [] : (["default"] as const)), ...(arg.valueOnly ? [] : (["property"] as const)), ...(arg.propertyOnly ? [] : (["value"] as const))];
}

/** The mode a required argument starts in: a literal where one may be typed, else a property. */
export function requiredArgumentMode(arg: ArgumentDescription): ArgumentMode {
  return arg.propertyOnly ? "property" : "value";
}

/** What an argument starts as when the user picks a mode (the first property; a value of its type). */
export function initialArgument(arg: ArgumentDescription, mode: ArgumentMode, properties: string[]): Argument | undefined {
  if (mode === "default") return undefined;
  if (mode === "property") return { property: properties[0] ?? "" };
  const input = arg.input;
  return { value: input.type === "number" ? 0 : input.type === "size" ? [800, 600] : input.type === "enum" ? input.options[0] : input.type === "json" ? {} : "" };
}

/**
 * A new step of `kind`: its required (and prefilled) arguments already given, a literal where one
 * may be typed, so the form shows an input for each (a required argument has no "not set").
 */
export function newProcessorStep(kind: KindDescription, properties: string[]): ProcessorValue {
  const args: Record<string, Argument> = {};
  for (const arg of kind.args) {
    if (!kind.required.includes(arg.name) && !kind.prefilled?.includes(arg.name)) continue;
    const initial = initialArgument(arg, requiredArgumentMode(arg), properties);
    if (initial) args[arg.name] = initial;
  }
  return { name: kind.name, in: args };
}
