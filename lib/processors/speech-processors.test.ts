import { describe, expect, it } from "vitest";
import { encodeMp3, readVoiceList, voiceFor, wavFile } from "./speech-processors";

describe("audio containers", () => {
  it("wraps PCM in a WAV header with exact sizes", () => {
    const wav = wavFile(Buffer.alloc(100), 22050);
    expect(wav.subarray(0, 4).toString("latin1")).toBe("RIFF");
    expect(wav.readUInt32LE(4)).toBe(136);
    expect(wav.readUInt32LE(24)).toBe(22050);
    expect(wav.readUInt32LE(40)).toBe(100);
  });

  it("encodes PCM at an odd offset to MPEG frames", async () => {
    const pcm = Buffer.alloc(22050 * 2 + 1).subarray(1); // one second, odd byteOffset
    for (let i = 0; i < 22050; i++) pcm.writeInt16LE(Math.round(5000 * Math.sin(i / 10)), i * 2);
    const mp3 = await encodeMp3(pcm, 22050);
    expect(mp3.length).toBeGreaterThan(1000);
    expect(mp3[0]).toBe(0xff);
    expect(mp3[1] & 0xe0).toBe(0xe0);
  });
});

describe("local voices", () => {
  // Lines as espeak-ng 1.51 prints them (`espeak-ng --voices`).
  const LIST = [
    "Pty Language       Age/Gender VoiceName          File                 Other Languages",
    " 5  cmn             --/M      Chinese_(Mandarin,_latin_as_English) sit/cmn              (zh-cmn 5)(zh 5)",
    " 5  en-029          --/M      English_(Caribbean) gmw/en-029           (en 10)",
    " 2  en-gb           --/M      English_(Great_Britain) gmw/en               (en 2)",
    " 5  en-gb-x-rp      --/M      English_(Received_Pronunciation) gmw/en-GB-x-rp       (en-gb 4)(en 5)",
    " 2  en-us           --/M      English_(America)  gmw/en-US            (en 3)",
    " 5  pt              --/F      Portuguese_(Portugal) roa/pt               (pt-pt 5)",
    " 5  ru              --/M      Russian            zle/ru               ",
  ].join("\n");

  it("finds a voice by name, by the languages it lists (lowest priority first), then by the primary language", () => {
    const { names, aliases } = readVoiceList(LIST);
    const voice = (language: string) => voiceFor(names, aliases, language);
    expect(voice("en-US")).toBe("en-us");
    expect(voice("en")).toBe("en-gb");
    expect(voice("en-AU")).toBe("en-gb");
    expect(voice("zh-CN")).toBe("cmn");
    expect(voice("pt_PT")).toBe("pt");
    expect(voice("ru-RU")).toBe("ru");
    expect(voice("xx")).toBeUndefined();
  });
});
