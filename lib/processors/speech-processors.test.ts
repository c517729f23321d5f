import { describe, expect, it } from "vitest";
import { encodeMp3, wavFile } from "./speech-processors";

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
