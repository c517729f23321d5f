import { execFile, spawn } from "node:child_process";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { Mp3Encoder } from "@breezystack/lamejs";
import { heavyWork } from "./processor-limits";
import { ProducedFile, type ProcessorCall, type ProcessorKind } from "./processor-types";
import { literalCheck } from "./text-processors";
import { vendorBase, vendorRequest } from "./vendor-request";

/**
 * Speech: espeak-ng on this machine (a child process: its own thread of execution, killed at the
 * processor's time limit; the text goes in on stdin, the program gets an argument array, never a
 * shell), or Yandex SpeechKit v1 when `yandex_speechkit_tts` has an `api_key`.
 * The local engine makes WAV (audio/x-wav) and MP3 (lamejs, encoded in slices that yield to the
 * event loop); Opus needs an encoder we do not ship: 422.
 */
const FORMATS = ["wav", "mp3", "opus"];
const ESPEAK = process.env.ARCA_ESPEAK_PATH || "espeak-ng";
/** Text given to the local engine at most (characters): a minute of speech is ~1000. */
const MAX_SPEECH_CHARS = 100_000;

export const textToSpeech: ProcessorKind = {
  output: ["file"],
  args: ["text", "language", "format", "engine"],
  source: "text",
  check: (spec) => literalCheck(spec, "format", (v) => v === "wav" || v === "mp3", 'must be "wav" or "mp3"'),
  async run(call) {
    const text = call.text("text");
    if (text === undefined) return null;
    const format = call.args.format ?? "wav";
    if (format !== "wav" && format !== "mp3") throw call.invalid('text_to_speech: format must be "wav" or "mp3"');
    return synthesizeLocally(call, text, stringArg(call, "language") ?? "en-US", format);
  },
};

export const yandexSpeechkitTts: ProcessorKind = {
  output: ["file"],
  args: ["text", "format", "language", "speaker", "emotion", "api_key", "engine"],
  source: "text",
  check: (spec) =>
    literalCheck(spec, "format", (v) => typeof v === "string" && FORMATS.includes(v), `must be one of ${FORMATS.join(", ")}`) ??
    literalCheck(spec, "engine", (v) => v === "local" || v === "yandex", 'must be "local" or "yandex"'),
  async run(call) {
    const text = call.text("text");
    if (text === undefined) return null;
    const format = call.args.format ?? "wav";
    if (typeof format !== "string" || !FORMATS.includes(format)) throw call.invalid(`yandex_speechkit_tts: format must be one of ${FORMATS.join(", ")}`);
    const language = stringArg(call, "language") ?? "ru-RU";
    const apiKey = stringArg(call, "api_key");
    if (!apiKey || call.args.engine === "local") {
      if (format === "opus") throw call.invalid("yandex_speechkit_tts: format not supported by the local engine");
      return synthesizeLocally(call, text, language, format as "wav" | "mp3");
    }
    return synthesizeWithYandex(call, text, language, format, apiKey);
  },
};

/** POST {base}/speech/v1/tts:synthesize, form-encoded; the answer is the audio itself. */
async function synthesizeWithYandex(call: ProcessorCall, text: string, language: string, format: string, apiKey: string): Promise<ProducedFile> {
  if (!/\S/.test(text)) throw call.invalid(`${call.name}: text is empty (nothing to speak)`);
  const form = new URLSearchParams({ text, lang: language, format: format === "wav" ? "lpcm" : format === "opus" ? "oggopus" : "mp3" });
  if (format === "wav") form.set("sampleRateHertz", "48000");
  const speaker = stringArg(call, "speaker");
  const emotion = stringArg(call, "emotion");
  if (speaker) form.set("voice", speaker);
  if (emotion) form.set("emotion", emotion);
  const answer = await vendorRequest(call, new URL(`${vendorBase("YANDEX_SPEECHKIT", "https://tts.api.cloud.yandex.net")}/speech/v1/tts:synthesize`), {
    headers: { authorization: `Api-Key ${apiKey}`, "content-type": "application/x-www-form-urlencoded" },
    body: form.toString(),
  });
  if (answer.status < 200 || answer.status >= 300) throw call.vendorFailed(`the vendor answered ${answer.status}`);
  if (answer.body.length === 0) throw call.vendorFailed("the vendor answered no audio");
  // An error page or error JSON with a 2xx status (a proxy, a captive portal) is no audio to keep.
  if (/^\s*(text\/|application\/(json|xml|xhtml\+xml)\b)/i.test(answer.contentType)) throw call.vendorFailed(`the vendor answered ${answer.contentType.split(";")[0].trim()}, not audio`);
  // lpcm is raw 16-bit mono PCM: a WAV header makes it a playable file.
  if (format === "wav") return new ProducedFile(wavFile(answer.body, 48_000), `${fileStem(call)}.wav`, "audio/x-wav");
  if (format === "opus") return new ProducedFile(answer.body, `${fileStem(call)}.ogg`, "audio/ogg");
  return new ProducedFile(answer.body, `${fileStem(call)}.mp3`, "audio/mpeg");
}

async function synthesizeLocally(call: ProcessorCall, text: string, language: string, format: "wav" | "mp3"): Promise<ProducedFile> {
  if (text.length > MAX_SPEECH_CHARS) throw call.invalid(`${call.name}: text longer than ${MAX_SPEECH_CHARS} characters`);
  if (!/\S/.test(text)) throw call.invalid(`${call.name}: text is empty (nothing to speak)`);
  const voice = await localVoice(call, language);
  return heavyWork.run(async () => {
    const { pcm, sampleRate } = await runEspeak(call, text, voice);
    if (format === "wav") return new ProducedFile(wavFile(pcm, sampleRate), `${fileStem(call)}.wav`, "audio/x-wav");
    return new ProducedFile(await encodeMp3(pcm, sampleRate), `${fileStem(call)}.mp3`, "audio/mpeg");
  });
}

/** espeak-ng's voices by name, and by the other languages they speak (`en` -> `en-gb`, `zh` -> `cmn`). */
interface Voices {
  names: Set<string>;
  aliases: Map<string, string>;
}
let voices: Promise<Voices> | undefined;

/** `--voices` lines: `Pty Language Age/Gender VoiceName File Other Languages`, e.g. `(en 2)(en-gb 3)`. */
export function readVoiceList(stdout: string): Voices {
  const names = new Set<string>();
  const best = new Map<string, { voice: string; priority: number }>();
  for (const line of stdout.split("\n").slice(1)) {
    const name = line.trim().split(/\s+/)[1]?.toLowerCase();
    if (!name) continue;
    names.add(name);
    for (const [, alias, priority] of line.matchAll(/\(([A-Za-z0-9-]+) (\d+)\)/g)) {
      const known = best.get(alias.toLowerCase());
      if (!known || Number(priority) < known.priority) best.set(alias.toLowerCase(), { voice: name, priority: Number(priority) });
    }
  }
  return { names, aliases: new Map([...best].map(([alias, { voice }]) => [alias, voice])) };
}

/**
 * `en-US` -> `en-us`; `en` -> the voice espeak-ng ranks first for English; `ru-RU` -> `ru` and
 * `en-AU` -> an English voice when it has no regional one; 422 for a language it lacks.
 */
async function localVoice(call: ProcessorCall, language: string): Promise<string> {
  voices ??= new Promise((resolve) =>
    execFile(ESPEAK, ["--voices"], { timeout: 10_000 }, (error, stdout) => {
      if (error) {
        voices = undefined;
        return resolve({ names: new Set(), aliases: new Map() });
      }
      resolve(readVoiceList(stdout));
    }),
  );
  const { names, aliases } = await voices;
  if (names.size === 0) throw call.vendorFailed("the local speech engine (espeak-ng) is not available");
  const voice = voiceFor(names, aliases, language);
  if (voice) return voice;
  throw call.invalid(`${call.name}: language ${JSON.stringify(language)} is not supported by the local engine`);
}

export function voiceFor(names: Set<string>, aliases: Map<string, string>, language: string): string | undefined {
  const wanted = language.toLowerCase().replace(/_/g, "-");
  const primary = wanted.split("-")[0];
  for (const candidate of [wanted, primary]) {
    if (names.has(candidate)) return candidate;
    const alias = aliases.get(candidate);
    if (alias) return alias;
  }
  return undefined;
}

/** espeak-ng writes a WAV whose sizes are unset (it streams): the PCM after the header and its rate are read here. */
function runEspeak(call: ProcessorCall, text: string, voice: string): Promise<{ pcm: Buffer; sampleRate: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(ESPEAK, ["-b", "1", "-v", voice, "--stdout"], { stdio: ["pipe", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    let stderr = "";
    const abort = () => child.kill("SIGKILL");
    if (call.signal.aborted) abort();
    else call.signal.addEventListener("abort", abort, { once: true });
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-500)));
    child.on("error", (error) => reject(call.vendorFailed(`the local speech engine failed to start (${error.message})`)));
    child.on("close", (code) => {
      call.signal.removeEventListener("abort", abort);
      if (call.signal.aborted) return reject(call.vendorFailed("timed out"));
      if (code !== 0) return reject(call.vendorFailed(`the local speech engine failed (${stderr.trim() || `exit ${code}`})`));
      const wav = Buffer.concat(chunks);
      const dataAt = wav.indexOf("data", 12, "latin1");
      if (wav.length < 44 || dataAt < 0) return reject(call.vendorFailed("the local speech engine wrote no audio"));
      resolve({ pcm: wav.subarray(dataAt + 8), sampleRate: wav.readUInt32LE(24) });
    });
    child.stdin.on("error", () => {}); // a child that died early: reported by "close"
    // One line per paragraph; espeak-ng reads plain text (no SSML without -m).
    child.stdin.end(text.replace(/\r\n?/g, "\n"));
  });
}

/** A RIFF/WAVE file around 16-bit mono PCM. */
export function wavFile(pcm: Buffer, sampleRate: number): Buffer {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write("WAVE", 8, "latin1");
  header.write("fmt ", 12, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

/** MP3 (64 kbit/s mono) in slices of ~1 s of audio, yielding to the event loop between them. */
export async function encodeMp3(pcm: Buffer, sampleRate: number): Promise<Buffer> {
  // Int16Array needs an even offset; a Buffer slice may start anywhere in its pool.
  const even = pcm.byteOffset % 2 === 0 ? pcm : Uint8Array.from(pcm);
  const aligned = new Int16Array(even.buffer, even.byteOffset, Math.floor(pcm.length / 2));
  const encoder = new Mp3Encoder(1, sampleRate, 64);
  const out: Buffer[] = [];
  // lamejs answers Int8Arrays: viewed as bytes, not copied.
  const bytes = (chunk: ArrayBufferView) => Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  const slice = 1152 * 20;
  for (let i = 0; i < aligned.length; i += slice) {
    out.push(bytes(encoder.encodeBuffer(aligned.subarray(i, i + slice))));
    await yieldToLoop();
  }
  out.push(bytes(encoder.flush()));
  return Buffer.concat(out);
}

function stringArg(call: ProcessorCall, arg: string): string | undefined {
  const value = call.args[arg];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") throw call.invalid(`${call.name}: ${arg} must be a string`);
  return value;
}

function fileStem(call: ProcessorCall): string {
  return call.property.split(".").pop()!.replace(/[^A-Za-z0-9_-]/g, "_") || "speech";
}

export { stringArg };
