import { resize, watermark } from "./image-processors";
import type { ProcessorKind } from "./processor-types";
import { textToSpeech, yandexSpeechkitTts } from "./speech-processors";
import { htmlToText, markdown, md5, random, readability, sentiment, template } from "./text-processors";
import { apiai, googleDetectLanguage, googleTranslate, readabilityCom, yandexDetectLanguage, yandexTranslate } from "./vendor-processors";

/** Every processor kind of CONTRACT §7, by the name a schema gives it. */
export const processorKinds: Record<string, ProcessorKind> = Object.assign(Object.create(null), {
  md5,
  random,
  template,
  markdown,
  html_to_text: htmlToText,
  readability,
  sentiment,
  resize,
  watermark,
  text_to_speech: textToSpeech,
  yandex_speechkit_tts: yandexSpeechkitTts,
  apiai,
  google_detect_language: googleDetectLanguage,
  yandex_detect_language: yandexDetectLanguage,
  google_translate: googleTranslate,
  yandex_translate: yandexTranslate,
  readability_com: readabilityCom,
});
