/**
 * The `Range` request header (RFC 9110 §14.1-14.2), as a pure, total function in the manner of
 * jshttp/range-parser: every input maps to a value, nothing throws.
 */

/** Inclusive byte positions, as `Content-Range` writes them: `{ start: 0, end: 0 }` is one byte. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * - `{ ranges, multipart }`: serve 206 with these ranges (overlapping ones coalesced, in the order
 *   the client first asked for them), as `multipart/byteranges` when the client asked for more
 *   than one satisfiable range (CONTRACT §6 "several: multipart"), even if they coalesced into one;
 * - `"unsatisfiable"`: serve 416 with `Content-Range: bytes *\/<size>`;
 * - `"ignore"`: serve 200 with the full body, as if no `Range` had been sent.
 */
export type RangeResult = { ranges: ByteRange[]; multipart: boolean } | "unsatisfiable" | "ignore";

/**
 * More range-specs than this and the header is ignored (200). Every part of a multipart/byteranges
 * body costs ~100 bytes of part headers, so thousands of one-byte ranges turn a small file into a
 * response many times its size (and a lot of seeks); RFC 9110 §14.2 lets a server ignore such a
 * request. Coalescing alone does not help there because tiny ranges need not overlap.
 */
export const MAX_RANGES = 100;

// OWS is SP / HTAB only (RFC 9110 §5.6.3); `\s` would also admit CR/LF and friends.
const SPEC = /^[ \t]*(\d*)[ \t]*-[ \t]*(\d*)[ \t]*$/;
const UNIT = /^[ \t]*([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*=(.*)$/s;

export function parseRange(size: number, header: string | undefined | null): RangeResult {
  if (!header || !Number.isSafeInteger(size) || size < 0) return "ignore";

  const unit = UNIT.exec(header);
  // Range units are case-insensitive (§14.1); an unknown unit MUST be ignored (§14.2).
  if (!unit || unit[1].toLowerCase() !== "bytes") return "ignore";

  // The list rule (§5.6.1) asks recipients to skip empty elements such as `0-1,,2-3`.
  const specs = unit[2].split(",").filter((spec) => spec.trim() !== "");
  if (specs.length === 0 || specs.length > MAX_RANGES) return "ignore";

  const ranges: ByteRange[] = [];
  // A suffix range on an empty representation is "satisfiable" by the RFC's wording, yet there
  // is no byte to put in a 206; serving the (empty) full body is the only honest answer.
  let emptySuffix = false;

  for (const spec of specs) {
    const match = SPEC.exec(spec);
    if (!match) return "ignore";
    const [, first, last] = match;

    if (first === "") {
      // suffix-range: "-" suffix-length; `bytes=-` is not a range at all.
      if (last === "") return "ignore";
      const length = Number(last);
      if (length === 0) continue; // valid, never satisfiable
      if (size === 0) {
        emptySuffix = true;
        continue;
      }
      ranges.push({ start: Math.max(0, size - length), end: size - 1 });
      continue;
    }

    const start = Number(first);
    const end = last === "" ? size - 1 : Number(last);
    // An int-range whose last-pos is below its first-pos makes the whole header invalid (§14.1.1).
    if (last !== "" && end < start) return "ignore";
    if (start >= size) continue; // valid, unsatisfiable; others in the set may still be served
    ranges.push({ start, end: Math.min(end, size - 1) });
  }

  if (ranges.length === 0) return emptySuffix ? "ignore" : "unsatisfiable";
  return { ranges: coalesce(ranges), multipart: ranges.length > 1 };
}

/**
 * Merges overlapping ranges (RFC 9110 §14.2 allows it, regardless of order), so `bytes=0-,0-,0-`
 * cannot make us send the file three times. Adjacent ones stay apart: `bytes=0-4,5-9` asks for
 * two parts and gets them. The merged ranges keep the order in which the client first asked for
 * them (§14.6: parts SHOULD follow the request's order).
 */
function coalesce(ranges: ByteRange[]): ByteRange[] {
  if (ranges.length === 1) return ranges;
  const byStart = ranges
    .map((range, index) => ({ ...range, index }))
    .sort((a, b) => a.start - b.start || a.index - b.index);

  const merged: Array<ByteRange & { index: number }> = [];
  for (const range of byStart) {
    const last = merged.at(-1);
    if (last && range.start <= last.end) {
      last.end = Math.max(last.end, range.end);
      last.index = Math.min(last.index, range.index);
    } else {
      merged.push({ ...range });
    }
  }
  return merged.sort((a, b) => a.index - b.index).map(({ start, end }) => ({ start, end }));
}

/** `Content-Range` for a 206 part (`bytes 0-99/1234`) or, without a range, for a 416 (`bytes *\/1234`). */
export function formatContentRange(size: number, range?: ByteRange): string {
  return range ? `bytes ${range.start}-${range.end}/${size}` : `bytes */${size}`;
}
