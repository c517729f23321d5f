import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ARTICLE_TITLE, STAND_IN_KEY, startVendorStandIns, type VendorStandIns } from "../../processors/testing/vendor-stand-ins";
import { apiSuite } from "../../testing/api-suite";
import { closeDb, fileRows, filesSize, getBytes, sumOfSizes, until } from "./files-helpers";
import { ownerWithProject } from "../../testing/fixtures";
import { processorSlotsPerProject } from "../../processors/processor-slots";

// Vendors (CONTRACT §7) against local stand-ins speaking their wire formats; the stand-ins listen
// on loopback, which the guard refuses unless the operator allows it (one test turns it off).
process.env.ARCA_HOOKS_ALLOW_PRIVATE = "true";

const t = apiSuite();
let vendor: VendorStandIns;
beforeAll(async () => {
  vendor = await startVendorStandIns();
  process.env.ARCA_VENDOR_GOOGLE_URL = vendor.url;
  process.env.ARCA_VENDOR_YANDEX_TRANSLATE_URL = vendor.url;
  process.env.ARCA_VENDOR_YANDEX_SPEECHKIT_URL = vendor.url;
  process.env.ARCA_VENDOR_APIAI_URL = `${vendor.url}/v1`;
});
afterAll(async () => {
  await vendor.close();
  await closeDb();
});
afterEach(() => {
  vendor.delayMs = 0;
  vendor.gate = undefined;
  vendor.failWith = undefined;
  process.env.ARCA_HOOKS_ALLOW_PRIVATE = "true";
  delete process.env.ARCA_PROCESSOR_TIMEOUT_MS;
});

const as = (extra: Record<string, unknown> = {}) => ({ project: t.owner.project, token: t.owner.token, ...extra });
const docs = (c: string) => `/api/collections/${c}/documents/`;
let counter = 0;
const unique = (prefix: string) => `${prefix}${++counter}${Date.now().toString(36)}`;
const key = { value: STAND_IN_KEY };

async function collectionWith(properties: Record<string, unknown>): Promise<string> {
  const id = unique("vend");
  const res = await t.server.request(`/api/collections/${id}/`, as({ json: { schema: { type: "object", properties, additionalProperties: true } } }));
  expect(res.status, res.text).toBe(201);
  return id;
}
const last = (path: string) => vendor.requests.filter((r) => r.path === path).at(-1)!;

describe("writes waiting on vendors hold a bounded share of the database pool", () => {
  it("one project's writes reach its vendor a quarter of the pool at a time; another project's still get through", async () => {
    const translated = { title: { type: "string" }, title_de: { type: "string", processors: [{ name: "google_translate", in: { text: { property: "title" }, to: { value: "de" }, api_key: key } }] } };
    const mine = await collectionWith(translated);
    const other = await ownerWithProject(t.server);
    const theirs = { project: other.project, token: other.token };
    expect((await t.server.request("/api/collections/theirs/", { ...theirs, json: { schema: { type: "object", properties: translated } } })).status).toBe(201);
    let open!: () => void;
    vendor.gate = new Promise<void>((resolve) => (open = resolve));
    const before = vendor.requests.length;
    const asked = (prefix: string) => vendor.requests.slice(before).filter((r) => JSON.parse(r.body).q.startsWith(prefix)).length;
    const cap = processorSlotsPerProject();
    const writes = Array.from({ length: cap + 3 }, (_, i) => t.server.request(docs(mine), as({ json: { title: `mine ${i}` } })));
    await until(() => asked("mine") === cap);
    // Their write reaches the vendor while ours wait for a slot, and plain requests answer.
    const their = t.server.request(docs("theirs"), { ...theirs, json: { title: "theirs" } });
    await until(() => asked("theirs") === 1);
    expect((await t.server.request(docs(mine), as())).status).toBe(200);
    expect(asked("mine")).toBe(cap);
    open();
    for (const answer of [...(await Promise.all(writes)), await their]) expect(answer.status, answer.text).toBe(201);
    expect(asked("mine")).toBe(cap + 3);
  });
});

describe("vendor processors on their wire formats", () => {
  it("google_translate and google_detect_language (Cloud Translation v2, key in the query)", async () => {
    const c = await collectionWith({
      title: { type: "string" },
      title_de: { type: "string", processors: [{ name: "google_translate", in: { text: { property: "title" }, from: { value: "en" }, to: { value: "de" }, api_key: key } }] },
      lang: { type: "string", processors: [{ name: "google_detect_language", in: { text: { property: "title" }, api_key: key } }] },
    });
    const res = await t.server.request(docs(c), as({ json: { title: "Good morning" } }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.title_de).toBe("[en>de:text] Good morning");
    expect(res.body.lang).toBe("de");
    const translate = last("/language/translate/v2");
    expect(translate.method).toBe("POST");
    expect(translate.query).toEqual({ key: STAND_IN_KEY });
    expect(JSON.parse(translate.body)).toEqual({ q: "Good morning", source: "en", target: "de", format: "text" });
    expect(translate.headers["content-type"]).toBe("application/json");
    const detect = last("/language/translate/v2/detect");
    expect(JSON.parse(detect.body)).toEqual({ q: "Good morning" });
    expect(detect.query.key).toBe(STAND_IN_KEY);
  });

  it("yandex_translate and yandex_detect_language (Cloud Translate v2, Api-Key header)", async () => {
    const c = await collectionWith({
      title: { type: "string" },
      title_en: { type: "string", processors: [{ name: "yandex_translate", in: { text: { property: "title" }, lang: { value: "ru-en" }, api_key: key } }] },
      lang: { type: "string", processors: [{ name: "yandex_detect_language", in: { text: { property: "title" }, api_key: key } }] },
    });
    const res = await t.server.request(docs(c), as({ json: { title: "Доброе утро" } }));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ title_en: "[ru>en] Доброе утро", lang: "ru" });
    const translate = last("/translate/v2/translate");
    expect(translate.headers.authorization).toBe(`Api-Key ${STAND_IN_KEY}`);
    expect(JSON.parse(translate.body)).toEqual({ texts: ["Доброе утро"], sourceLanguageCode: "ru", targetLanguageCode: "en" });
    expect(JSON.parse(last("/translate/v2/detect").body)).toEqual({ text: "Доброе утро" });
  });

  it("apiai on an OpenAI-compatible endpoint (configured or base_url, key aliases), in Dialogflow's output shape", async () => {
    const c = await collectionWith({
      question: { type: "string" },
      answer: { type: "object", processors: [{ name: "apiai", in: { text: { property: "question" }, subscription_key: key, model: { value: "small-1" }, language: { value: "en" }, contexts: { value: [{ name: "weather" }] } } }] },
      answer2: { type: "object", processors: [{ name: "apiai", in: { text: { property: "question" }, base_url: { value: `${vendor.url}/v1/` }, language_token: key } }] },
    });
    const res = await t.server.request(docs(c), as({ json: { question: "Will it rain?" } }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.answer).toEqual({ resolvedQuery: "Will it rain?", speech: "You said: Will it rain?", action: "", parameters: {}, contexts: [{ name: "weather" }] });
    expect(res.body.answer2.speech).toBe("You said: Will it rain?");
    const call = vendor.requests.filter((r) => r.path === "/v1/chat/completions").at(-2)!;
    expect(call.headers.authorization).toBe(`Bearer ${STAND_IN_KEY}`);
    const body = JSON.parse(call.body);
    expect(body.model).toBe("small-1");
    expect(body.messages.at(-1)).toEqual({ role: "user", content: "Will it rain?" });
    expect(body.messages[0].role).toBe("system");
  });

  it("an output shaped like a file record that is no file of the document is refused (422), as a client's would be", async () => {
    const forged = { _id: "not-a-file-here", collection_id: "elsewhere", content_type: "image/png", date_created: "2026-01-01T00:00:00.00Z", document_id: "x", last_access: "2026-01-01T00:00:00.00Z", md5: "0".repeat(32), name: "x.png", size: 1 };
    const c = await collectionWith({
      question: { type: "string" },
      answer: { type: "object", processors: [{ name: "apiai", in: { text: { property: "question" }, subscription_key: key, contexts: { value: [forged] } } }] },
    });
    const res = await t.server.request(docs(c), as({ json: { _id: "q1", question: "Hi?" } }));
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors).toEqual([{ property: "answer.contexts.0", message: "is not a file of this document: a file property is filled by uploading" }]);
    expect((await t.server.request(`${docs(c)}q1/`, as())).status).toBe(404);
  });

  it("readability_com fetches the page (redirects followed, at most 5) and extracts it locally", async () => {
    const c = await collectionWith({
      link: { type: "string" },
      article: { type: "object", processors: [{ name: "readability_com", in: { url: { property: "link" } } }] },
    });
    const res = await t.server.request(docs(c), as({ json: { link: `${vendor.url}/pages/redirect/3` } }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.article).toMatchObject({ title: ARTICLE_TITLE, short_title: "Tides of the Baltic", url: `${vendor.url}/pages/article`, domain: "127.0.0.1" });
    expect(res.body.article.content).toContain("brackish");
    expect(res.body.article.content).not.toContain("steal");

    const tooMany = await t.server.request(docs(c), as({ json: { _id: "loop", link: `${vendor.url}/pages/redirect/9` } }));
    expect(tooMany.status).toBe(502);
    expect(tooMany.body.message).toContain("readability_com");
    expect(tooMany.body.message).toContain("redirects");

    const notHtml = await t.server.request(docs(c), as({ json: { _id: "img", link: `${vendor.url}/pages/image` } }));
    expect(notHtml.status).toBe(422);
    expect(notHtml.body.errors[0].property).toBe("article");

    const notUrl = await t.server.request(docs(c), as({ json: { _id: "nourl", link: "file:///etc/passwd" } }));
    expect(notUrl.status).toBe(422);
    expect((await t.server.request(`${docs(c)}loop/`, as())).status).toBe(404);
  });

  it("loopback targets are refused without ARCA_HOOKS_ALLOW_PRIVATE: 422 for a document's URL, 502 for a configured vendor", async () => {
    process.env.ARCA_HOOKS_ALLOW_PRIVATE = "false";
    const c = await collectionWith({
      link: { type: "string" },
      article: { type: "object", processors: [{ name: "readability_com", in: { url: { property: "link" } } }] },
      title: { type: "string" },
      title_de: { type: "string", processors: [{ name: "google_translate", in: { text: { property: "title" }, to: { value: "de" }, api_key: key } }] },
    });
    const before = vendor.requests.length;
    const page = await t.server.request(docs(c), as({ json: { link: `${vendor.url}/pages/article` } }));
    expect(page.status).toBe(422);
    expect(page.body.errors[0]).toMatchObject({ property: "article" });
    expect(page.body.errors[0].message).toContain("private");
    // A name that resolves to loopback is caught on the resolved address too.
    const named = await t.server.request(docs(c), as({ json: { link: vendor.url.replace("127.0.0.1", "localhost") + "/pages/article" } }));
    expect(named.status).toBe(422);
    const translate = await t.server.request(docs(c), as({ json: { title: "Hello" } }));
    expect(translate.status).toBe(502);
    expect(translate.body.message).toContain("google_translate");
    expect(vendor.requests.length).toBe(before);
  });

  it("a vendor error, an unreachable vendor and a timeout are 502 naming the processor; nothing is stored", async () => {
    const c = await collectionWith({
      title: { type: "string" },
      title_de: { type: "string", processors: [{ name: "google_translate", in: { text: { property: "title" }, to: { value: "de" }, api_key: key } }] },
    });
    vendor.failWith = 500;
    const failed = await t.server.request(docs(c), as({ json: { _id: "f1", title: "Hello" } }));
    expect(failed.status).toBe(502);
    expect(failed.body.message).toMatch(/google_translate.*title_de.*500/);
    expect(failed.body.message).not.toContain(STAND_IN_KEY);
    vendor.failWith = undefined;

    process.env.ARCA_PROCESSOR_TIMEOUT_MS = "300";
    vendor.delayMs = 2000;
    const slow = await t.server.request(docs(c), as({ json: { _id: "f2", title: "Hello" } }));
    expect(slow.status).toBe(502);
    expect(slow.body.message).toContain("timed out");
    vendor.delayMs = 0;
    delete process.env.ARCA_PROCESSOR_TIMEOUT_MS;

    process.env.ARCA_VENDOR_GOOGLE_URL = "http://127.0.0.1:9";
    try {
      const down = await t.server.request(docs(c), as({ json: { _id: "f3", title: "Hello" } }));
      expect(down.status).toBe(502);
      expect(down.body.message).toContain("google_translate");
    } finally {
      process.env.ARCA_VENDOR_GOOGLE_URL = vendor.url;
    }
    for (const id of ["f1", "f2", "f3"]) expect((await t.server.request(`${docs(c)}${id}/`, as())).status).toBe(404);

    // On an existing document the stored version stays.
    const ok = await t.server.request(docs(c), as({ json: { _id: "f4", title: "Hello" } }));
    expect(ok.status).toBe(201);
    vendor.failWith = 503;
    const patch = await t.server.request(`${docs(c)}f4/`, as({ method: "PATCH", json: { title: "Bye" } }));
    expect(patch.status).toBe(502);
    expect((await t.server.request(`${docs(c)}f4/`, as())).body).toMatchObject({ title: "Hello", title_de: "[auto>de:text] Hello" });
  });
});

describe("speech", () => {
  it("text_to_speech with the local engine: a WAV file record, counted in files_size, its bytes a RIFF/WAVE", async () => {
    const project = t.owner.project;
    const c = await collectionWith({
      text: { type: "string" },
      voice: { type: "file", processors: [{ name: "text_to_speech", in: { text: { property: "text" }, language: { value: "en-US" } } }] },
    });
    const res = await t.server.request(docs(c), as({ json: { _id: "s1", text: "Hello from Arca" } }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.voice).toMatchObject({ content_type: "audio/x-wav", name: "voice.wav", collection_id: c, document_id: "s1" });
    const { body: bytes } = await getBytes(t.server, `/api/collections/_files/documents/${res.body.voice._id}/content/`, project, t.owner.token);
    expect(bytes.subarray(0, 4).toString("latin1")).toBe("RIFF");
    expect(bytes.subarray(8, 12).toString("latin1")).toBe("WAVE");
    expect(bytes.readUInt32LE(40)).toBe(bytes.length - 44);
    expect(bytes.length).toBe(res.body.voice.size);
    expect(await filesSize(project)).toBe(await sumOfSizes(project));

    // New text: a new file, the old one removed with the same write.
    const again = await t.server.request(`${docs(c)}s1/`, as({ method: "PATCH", json: { text: "Another sentence" } }));
    expect(again.status, again.text).toBe(200);
    expect(again.body.voice._id).not.toBe(res.body.voice._id);
    const rows = (await fileRows(project)).filter((r) => r.collection_id === c);
    expect(rows.map((r) => r.id)).toEqual([again.body.voice._id]);
    expect(await filesSize(project)).toBe(await sumOfSizes(project));
  });

  it("yandex_speechkit_tts: local mp3 without api_key, opus refused locally, and SpeechKit v1 with a key", async () => {
    const c = await collectionWith({
      text: { type: "string" },
      mp3: { type: "file", processors: [{ name: "yandex_speechkit_tts", in: { text: { property: "text" }, format: { value: "mp3" }, language: { value: "ru-RU" } } }] },
    });
    const res = await t.server.request(docs(c), as({ json: { text: "Привет, мир" } }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.mp3).toMatchObject({ content_type: "audio/mpeg", name: "mp3.mp3" });
    const { body: mp3 } = await getBytes(t.server, `/api/collections/_files/documents/${res.body.mp3._id}/content/`, t.owner.project, t.owner.token);
    expect(mp3[0]).toBe(0xff);
    expect(mp3[1] & 0xe0).toBe(0xe0); // an MPEG frame sync

    const opus = await collectionWith({ text: { type: "string" }, a: { type: "file", processors: [{ name: "yandex_speechkit_tts", in: { text: { property: "text" }, format: { value: "opus" } } }] } });
    const refused = await t.server.request(docs(opus), as({ json: { text: "Привет" } }));
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toEqual({ property: "a", message: "yandex_speechkit_tts: format not supported by the local engine" });

    const cloud = await collectionWith({
      text: { type: "string" },
      wav: { type: "file", processors: [{ name: "yandex_speechkit_tts", in: { text: { property: "text" }, format: { value: "wav" }, speaker: { value: "alena" }, emotion: { value: "good" }, api_key: key } }] },
      ogg: { type: "file", processors: [{ name: "yandex_speechkit_tts", in: { text: { property: "text" }, format: { value: "opus" }, api_key: key } }] },
    });
    const viaVendor = await t.server.request(docs(cloud), as({ json: { text: "Привет" } }));
    expect(viaVendor.status, viaVendor.text).toBe(201);
    expect(viaVendor.body.wav).toMatchObject({ content_type: "audio/x-wav", size: 44 + 9600 });
    expect(viaVendor.body.ogg.content_type).toBe("audio/ogg");
    const synth = vendor.requests.filter((r) => r.path === "/speech/v1/tts:synthesize");
    const wavCall = new URLSearchParams(synth.find((r) => r.body.includes("lpcm"))!.body);
    expect(Object.fromEntries(wavCall)).toEqual({ text: "Привет", lang: "ru-RU", format: "lpcm", sampleRateHertz: "48000", voice: "alena", emotion: "good" });
    expect(synth[0].headers.authorization).toBe(`Api-Key ${STAND_IN_KEY}`);
    expect(synth[0].headers["content-type"]).toBe("application/x-www-form-urlencoded");

    // A 200 that is no audio (a proxy's page) is a failed vendor, not a file: 502, nothing stored.
    const rowsBefore = (await fileRows(t.owner.project)).length;
    vendor.htmlPage = true;
    try {
      const page = await t.server.request(docs(cloud), as({ json: { _id: "portal", text: "Привет" } }));
      expect(page.status).toBe(502);
      expect(page.body.message).toMatch(/yandex_speechkit_tts.*text\/html, not audio/);
    } finally {
      vendor.htmlPage = false;
    }
    expect((await t.server.request(`${docs(cloud)}portal/`, as())).status).toBe(404);
    expect((await fileRows(t.owner.project)).length).toBe(rowsBefore);
  });

  it("the local engine past the time limit is killed: 502 naming the processor, nothing stored", async () => {
    const c = await collectionWith({ v: { type: "file", processors: [{ name: "text_to_speech", in: { text: { property: "text" } } }] } });
    await t.server.request(docs(c), as({ json: { _id: "warm", text: "warm up" } })); // the voice list is read once
    const rowsBefore = (await fileRows(t.owner.project)).length;
    process.env.ARCA_PROCESSOR_TIMEOUT_MS = "5";
    const res = await t.server.request(docs(c), as({ json: { _id: "long", text: "A long text to read aloud. ".repeat(400) } }));
    expect(res.status).toBe(502);
    expect(res.body.message).toMatch(/text_to_speech.*timed out/);
    expect((await t.server.request(`${docs(c)}long/`, as())).status).toBe(404);
    expect((await fileRows(t.owner.project)).length).toBe(rowsBefore);
  });

  it("an empty text is bad input (422 naming the property), not a failed engine (502); nothing is stored", async () => {
    const c = await collectionWith({
      text: { type: "string" },
      v: { type: "file", processors: [{ name: "text_to_speech", in: { text: { property: "text" } } }] },
      y: { type: "file", processors: [{ name: "yandex_speechkit_tts", in: { text: { property: "text" } } }] },
    });
    for (const text of ["", "  \n "]) {
      const res = await t.server.request(docs(c), as({ json: { _id: "e", text } }));
      expect(res.status, res.text).toBe(422);
      expect(["v", "y"]).toContain(res.body.errors[0].property);
      expect(res.body.errors[0].message).toMatch(/empty/);
    }
    expect((await t.server.request(`${docs(c)}e/`, as())).status).toBe(404);
  });

  it("a language the local engine lacks is 422 naming the property", async () => {
    const c = await collectionWith({ v: { type: "file", processors: [{ name: "text_to_speech", in: { text: { value: "hi" }, language: { value: "xx-YY" } } }] } });
    const res = await t.server.request(docs(c), as({ json: {} }));
    expect(res.status).toBe(422);
    expect(res.body.errors[0].property).toBe("v");
  });
});
