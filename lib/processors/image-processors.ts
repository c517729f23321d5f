import sharp from "sharp";
import { heavyWork, MAX_INPUT_PIXELS } from "./processor-limits";
import { ProducedFile, type FileInput, type ProcessorCall, type ProcessorKind } from "./processor-types";
import { literalCheck } from "./text-processors";

/**
 * `resize` and `watermark` with sharp (libvips): the pixels are worked on in libvips' own
 * threads, never on the event loop; the input streams in from its blob. Output has the input's
 * format (jpeg, png, webp, gif, avif). Inputs above MAX_INPUT_PIXELS are refused before decoding.
 */
// libvips' operation cache only helps repeated work on one input, which writes never are; it
// would hold decoded images after the write.
sharp.cache(false);

const FORMATS: Record<string, { format: keyof sharp.FormatEnum; contentType: string }> = {
  jpeg: { format: "jpeg", contentType: "image/jpeg" },
  png: { format: "png", contentType: "image/png" },
  webp: { format: "webp", contentType: "image/webp" },
  gif: { format: "gif", contentType: "image/gif" },
  heif: { format: "avif", contentType: "image/avif" }, // sharp reports AVIF as a HEIF container
};

const GRAVITY: Record<string, string> = {
  NorthWest: "northwest",
  North: "north",
  NorthEast: "northeast",
  West: "west",
  Center: "centre",
  East: "east",
  SouthWest: "southwest",
  South: "south",
  SouthEast: "southeast",
};

const isSize = (v: unknown) => Array.isArray(v) && v.length === 2 && v.every((n) => Number.isInteger(n) && n >= 1 && n <= 10_000);

export const resize: ProcessorKind = {
  output: ["file"],
  args: ["original_image", "size"],
  required: ["size"],
  source: "original_image",
  check: (spec) => literalCheck(spec, "size", isSize, "must be [width, height], whole numbers from 1 to 10000"),
  async run(call) {
    if (call.args.original_image === undefined || call.args.original_image === null) return null;
    const size = call.args.size;
    if (!isSize(size)) throw call.invalid("resize: size must be [width, height], whole numbers from 1 to 10000");
    const [width, height] = size as [number, number];
    const input = await call.file("original_image");
    return heavyWork.run(async () => {
      const { image, format } = await openImage(call, input, "original_image");
      const data = await image
        .rotate() // EXIF orientation applied, so "width" is the width one sees
        .resize(width, height, { fit: "inside", withoutEnlargement: true })
        .toFormat(format.format)
        .toBuffer()
        .catch((error) => rethrow(call, error));
      return new ProducedFile(data, input.name, format.contentType);
    });
  },
};

export const watermark: ProcessorKind = {
  output: ["file"],
  args: ["original_image", "watermark_image", "gravity", "opacity", "url"],
  required: ["watermark_image"],
  source: "original_image",
  check(spec) {
    if (spec.in.url) return 'argument "url" is not supported: give a watermark_image file';
    return (
      literalCheck(spec, "gravity", (v) => typeof v === "string" && Object.hasOwn(GRAVITY, v), `must be one of ${Object.keys(GRAVITY).join(", ")}`) ??
      literalCheck(spec, "opacity", (v) => typeof v === "number" && v >= 0 && v <= 1, "must be a number from 0 to 1")
    );
  },
  async run(call) {
    if (call.args.url !== undefined) throw call.invalid('watermark: argument "url" is not supported: give a watermark_image file');
    if (call.args.original_image === undefined || call.args.original_image === null) return null;
    const gravity = call.args.gravity ?? "SouthEast";
    const opacity = call.args.opacity ?? 1;
    if (typeof gravity !== "string" || !Object.hasOwn(GRAVITY, gravity)) throw call.invalid(`watermark: gravity must be one of ${Object.keys(GRAVITY).join(", ")}`);
    if (typeof opacity !== "number" || !(opacity >= 0 && opacity <= 1)) throw call.invalid("watermark: opacity must be a number from 0 to 1");
    const base = await call.file("original_image");
    const mark = await call.file("watermark_image");
    return heavyWork.run(async () => {
      const { image, format } = await openImage(call, base, "original_image");
      const rotated = await image.rotate().toBuffer({ resolveWithObject: true }).catch((error) => rethrow(call, error));
      const { width, height } = rotated.info;
      const markImage = (await openImage(call, mark, "watermark_image")).image;
      // The mark fits inside the image (sharp refuses a larger overlay); its alpha is scaled by
      // `opacity` in libvips ("dest-in" with a uniformly translucent layer), not pixel by pixel here.
      const fitted = await markImage
        .resize(width, height, { fit: "inside", withoutEnlargement: true })
        .ensureAlpha()
        .png()
        .toBuffer({ resolveWithObject: true })
        .catch((error) => rethrow(call, error));
      const overlay =
        opacity >= 1
          ? fitted.data
          : await sharp(fitted.data)
              .composite([
                {
                  input: { create: { width: fitted.info.width, height: fitted.info.height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: opacity } } },
                  blend: "dest-in",
                },
              ])
              .png()
              .toBuffer();
      const data = await sharp(rotated.data, { limitInputPixels: MAX_INPUT_PIXELS })
        .composite([{ input: overlay, gravity: GRAVITY[gravity] }])
        .toFormat(format.format)
        .toBuffer()
        .catch((error) => rethrow(call, error));
      return new ProducedFile(data, base.name, format.contentType);
    });
  },
};

/** The image with its format checked and its pixel count bounded (422 otherwise). */
async function openImage(call: ProcessorCall, input: FileInput, arg: string): Promise<{ image: sharp.Sharp; format: (typeof FORMATS)[string] }> {
  const image = sharp({ limitInputPixels: MAX_INPUT_PIXELS, failOn: "error", sequentialRead: true });
  const source = await input.open();
  source.on("error", (error) => image.destroy(error));
  source.pipe(image);
  // The header is enough for the format and the size: the pixels are not decoded here.
  const meta = await image.metadata().catch((error) => rethrow(call, error, arg));
  const format = meta.format ? FORMATS[meta.format] : undefined;
  if (!format) throw call.invalid(`${call.name}: ${arg} must be a jpeg, png, webp, gif or avif image`);
  if ((meta.width ?? 0) * (meta.height ?? 0) > MAX_INPUT_PIXELS)
    throw call.invalid(`${call.name}: ${arg} has more than ${MAX_INPUT_PIXELS} pixels`);
  return { image, format };
}

function rethrow(call: ProcessorCall, error: unknown, arg = "original_image"): never {
  if ((error as Error).name === "AppError") throw error;
  const message = (error as Error).message ?? String(error);
  if (/pixel limit/i.test(message)) throw call.invalid(`${call.name}: ${arg} has more than ${MAX_INPUT_PIXELS} pixels`);
  throw call.invalid(`${call.name}: ${arg} is not a readable image (${message.split("\n")[0]})`);
}
