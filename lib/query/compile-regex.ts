import { RE2JS } from "re2js";
import { badRequest } from "@/lib/errors";
import type { CompiledRegex } from "./types";

/**
 * The filter's `$regex` must give the same answer in memory and in PostgreSQL, whose regex
 * dialects differ (`.` and newlines, `\w`, case folding, lookarounds). So a pattern is parsed
 * into a small regular language and written out twice, with every class spelled out as explicit
 * code-point ranges and case-insensitivity expanded into those classes. Without backreferences
 * or lookarounds both engines decide plain language membership, so they agree by construction.
 * The one exception, `\b` and `\B`, is RE2's own ASCII assertion in memory and, in PostgreSQL
 * (whose `\y` follows the locale), lookaround constraints on the same explicit ASCII class.
 */
export function compileRegex(source: string, options = "", spendSize: (size: number) => void = () => {}): CompiledRegex {
  for (const flag of options) {
    if (flag !== "i" && flag !== "m" && flag !== "s") throw badRequest(`Unsupported $options flag: ${flag}`);
  }
  if (source.length > 1000) throw badRequest("$regex pattern is too long");
  const key = `${options}/${source}`;
  const cached = compiled.get(key);
  if (cached) {
    spendSize(cached.size);
    // Most recently used last: the first key is the one to drop.
    compiled.delete(key);
    compiled.set(key, cached);
    return cached.regex;
  }
  const ignoreCase = options.includes("i");
  const ast = new RegexParser(source, { ignoreCase, dotAll: options.includes("s"), multiline: options.includes("m") }).parse();
  // Before RE2 compiles it: its compile time grows with the expanded size (~4 µs a unit), and
  // runs on the event loop every other project's requests share.
  const size = expandedSize(ast);
  spendSize(size);
  const regex = { source, ignoreCase, js: linearMatcher(source, emit(ast, "re2")), pg: emit(ast, "pg") };
  compiled.set(key, { regex, size });
  if (compiled.size > CACHED_PATTERNS) compiled.delete(compiled.keys().next().value!);
  return regex;
}

/** Patterns compiled lately: a client repeating its filter pays for the compile once. */
const compiled = new Map<string, { regex: CompiledRegex; size: number }>();
const CACHED_PATTERNS = 256;

/**
 * The pattern's size once counted repeats are spelled out, as RE2 compiles it: `(?:a|b){1,99}`
 * is 2 x 99. An unbounded repeat counts its minimum plus one copy.
 */
function expandedSize(node: Node): number {
  switch (node.t) {
    case "alt":
      return node.alts.reduce((sum, alt) => sum + expandedSize(alt), 0);
    case "seq":
      return node.items.reduce((sum, item) => sum + expandedSize(item), 0);
    case "rep":
      return expandedSize(node.body) * Math.max(1, node.max === Infinity ? node.min + 1 : node.max);
    default:
      return 1;
  }
}

/**
 * In memory the pattern runs on RE2 (re2js): linear in the input whatever the pattern, where
 * V8's backtracking engine took 11-21 s on `^(a+)+$` and blocked the event loop for everyone.
 */
function linearMatcher(source: string, pattern: string): { test(input: string): boolean } {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch {
    throw badRequest(`Invalid $regex ${JSON.stringify(source)}: too complex (nested repeats expand too far)`);
  }
  return { test: (input) => compiled.test(input) };
}

type Range = [number, number];
type Node =
  | { t: "alt"; alts: Node[] }
  | { t: "seq"; items: Node[] }
  | { t: "set"; ranges: Range[] }
  | { t: "rep"; body: Node; min: number; max: number }
  // `multiline`: `^`/`$` under `m` also match after/before a newline (`\A`, `\z` never do).
  | { t: "bol"; multiline?: boolean }
  | { t: "eol"; multiline?: boolean }
  // `\Z`: the end, or before a newline that ends the subject.
  | { t: "eolz" }
  | { t: "boundary"; negated: boolean };

/** PCRE's inline flags that this translation honours; the rest are refused by name. */
interface Flags {
  ignoreCase: boolean;
  dotAll: boolean;
  multiline: boolean;
}

const MAX_CODE_POINT = 0x10ffff;
const MAX_REPEAT = 100; // PostgreSQL refuses counts above 255 and grows fast with nesting
const digit: Range[] = [[0x30, 0x39]];
const word: Range[] = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
// ASCII classes, as MongoDB's PCRE has them by default.
const space: Range[] = [[0x09, 0x0d], [0x20, 0x20]];
const newline: Range[] = [[0x0a, 0x0a]];

class RegexParser {
  private readonly chars: string[];
  private pos = 0;
  // Mutable: `(?i)` changes it for the rest of the enclosing group, which restores it on `)`.
  private flags: Flags;

  constructor(
    private readonly source: string,
    flags: Flags,
  ) {
    this.chars = unquote([...source]);
    this.flags = { ...flags };
  }

  parse(): Node {
    const node = this.alternation();
    if (this.pos < this.chars.length) this.fail("unbalanced )");
    checkEndZ(node, true, () => this.fail("\\Z is supported only at the end of the pattern (nothing may follow it)"));
    return node;
  }

  private fail(reason: string): never {
    throw badRequest(`Invalid $regex ${JSON.stringify(this.source)}: ${reason}`);
  }

  private peek(offset = 0): string | undefined {
    return this.chars[this.pos + offset];
  }

  private alternation(): Node {
    const alts = [this.sequence()];
    while (this.peek() === "|") {
      this.pos++;
      alts.push(this.sequence());
    }
    return alts.length === 1 ? alts[0] : { t: "alt", alts };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (let c = this.peek(); c !== undefined && c !== "|" && c !== ")"; c = this.peek()) {
      const setting = c === "(" && this.peek(1) === "?" ? this.inlineFlags(this.pos + 2) : undefined;
      if (setting?.end === ")") {
        this.flags = setting.flags;
        this.pos += setting.length;
        continue;
      }
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return { t: "seq", items };
  }

  private atom(): Node {
    const c = this.chars[this.pos++];
    switch (c) {
      case "^":
        return { t: "bol", multiline: this.flags.multiline };
      case "$":
        return { t: "eol", multiline: this.flags.multiline };
      case ".":
        return { t: "set", ranges: complement(this.flags.dotAll ? [] : newline) };
      case "(": {
        const outer = this.flags;
        if (this.peek() === "?") {
          const lookbehind = this.peek(1) === "<" && (this.peek(2) === "=" || this.peek(2) === "!");
          if (this.peek(1) === "=" || this.peek(1) === "!" || lookbehind)
            this.fail("lookarounds are not supported (patterns run on a linear-time engine)");
          if (this.peek(1) === "<") this.fail("named groups are not supported: use (?:...)");
          const setting = this.inlineFlags(this.pos + 1);
          if (setting?.end === ":") {
            this.flags = setting.flags;
            this.pos += setting.length - 1;
          } else if (this.peek(1) !== ":") this.fail("only (?:...) groups are supported");
          else this.pos += 2;
        }
        const body = this.alternation();
        if (this.chars[this.pos++] !== ")") this.fail("missing )");
        this.flags = outer;
        return body;
      }
      case "[":
        return this.set(this.bracket());
      case "\\":
        switch (this.peek()) {
          case "b":
          case "B":
            return { t: "boundary", negated: this.chars[this.pos++] === "B" };
          case "A":
            this.pos++;
            return { t: "bol" };
          case "z":
            this.pos++;
            return { t: "eol" };
          case "Z":
            this.pos++;
            return { t: "eolz" };
        }
        return this.set(this.escape());
      case "*":
      case "+":
      case "?":
        return this.fail(`nothing to repeat before ${c}`);
      case "{":
        if (this.quantifierAt(this.pos - 1)) this.fail("nothing to repeat before {");
        return this.set([[0x7b, 0x7b]]);
      default:
        return this.set(single(c.codePointAt(0)!));
    }
  }

  private set(ranges: Range[]): Node {
    return { t: "set", ranges: this.flags.ignoreCase ? caseClosure(ranges) : ranges };
  }

  /**
   * Reads PCRE's `(?flags)` / `(?flags:` from `at` (just after `(?`), flags being `i`, `-i`, `is-s`
   * and the like. Undefined when the group is not a flag setting at all (`(?R)`, `(?P<n>`...),
   * so those keep their own message.
   */
  private inlineFlags(at: number): { flags: Flags; end: ")" | ":"; length: number } | undefined {
    const flags = { ...this.flags };
    let on = true;
    let letters = 0;
    let i = at;
    for (; ; i++) {
      const c = this.chars[i];
      if (c === "-" && on) on = false;
      else if (c === "i") flags.ignoreCase = on;
      else if (c === "s") flags.dotAll = on;
      else if (c === "m") flags.multiline = on;
      else if (c !== undefined && "nxUJ".includes(c)) this.fail(`inline flag ${c} is not supported (only i, m and s are)`);
      else break;
      if (c !== "-") letters++;
    }
    const end = this.chars[i];
    if (letters === 0 || (end !== ")" && end !== ":")) return undefined;
    return { flags, end, length: i + 1 - (at - 2) };
  }

  private quantifierAt(at: number): { min: number; max: number; length: number } | undefined {
    const rest = this.chars.slice(at, at + 12).join("");
    const m = /^\{(\d{1,3})(,(\d{0,3}))?\}/.exec(rest);
    if (!m) return undefined;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
    return { min, max, length: [...m[0]].length };
  }

  private quantified(atom: Node): Node {
    let node = atom;
    let quantifiers = 0;
    for (;;) {
      const c = this.peek();
      let min: number;
      let max: number;
      if (c === "*") [min, max, this.pos] = [0, Infinity, this.pos + 1];
      else if (c === "+") [min, max, this.pos] = [1, Infinity, this.pos + 1];
      else if (c === "?") [min, max, this.pos] = [0, 1, this.pos + 1];
      else if (c === "{" && this.quantifierAt(this.pos)) {
        const q = this.quantifierAt(this.pos)!;
        [min, max, this.pos] = [q.min, q.max, this.pos + q.length];
      } else return node;
      if (quantifiers++ > 0) this.fail("repeated quantifier");
      if (atom.t === "bol" || atom.t === "eol" || atom.t === "eolz" || atom.t === "boundary") this.fail("nothing to repeat");
      if (min > max) this.fail("numbers out of order in {} quantifier");
      if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) this.fail(`repeat count above ${MAX_REPEAT}`);
      // Laziness changes which match is found, never whether one exists.
      if (this.peek() === "?") this.pos++;
      node = { t: "rep", body: node, min, max };
    }
  }

  private bracket(): Range[] {
    const negate = this.peek() === "^";
    if (negate) this.pos++;
    const ranges: Range[] = [];
    let first = true;
    for (;;) {
      const c = this.chars[this.pos++];
      if (c === undefined) this.fail("missing ]");
      if (c === "]" && !first) break;
      first = false;
      // `[[:digit:]]`, `[[.a.]]`, `[[=a=]]`: POSIX's, which JavaScript reads as plain characters
      // and PostgreSQL as classes. Refused rather than read one way here and another there.
      if (c === "[" && (this.peek() === ":" || this.peek() === "." || this.peek() === "="))
        this.fail("POSIX bracket expressions ([:digit:] and the like) are not supported: use \\d, \\w, \\s or a range");
      const low = c === "\\" ? this.escape() : single(c.codePointAt(0)!);
      if (this.peek() === "-" && this.peek(1) !== undefined && this.peek(1) !== "]") {
        this.pos++;
        const d = this.chars[this.pos++];
        const high = d === "\\" ? this.escape() : single(d.codePointAt(0)!);
        if (!isSingle(low) || !isSingle(high)) this.fail("a class escape cannot bound a range");
        if (low[0][0] > high[0][0]) this.fail("range out of order in character class");
        ranges.push([low[0][0], high[0][0]]);
      } else ranges.push(...low);
    }
    const set = normalize(ranges);
    // Case-insensitive: the class is closed under case before it is negated (`[^a-z]` with `i`
    // excludes `A` too); the complement of a case-closed set is case-closed, so `set()` keeps it.
    return negate ? complement(this.flags.ignoreCase ? caseClosure(set) : set) : set;
  }

  private escape(): Range[] {
    const c = this.chars[this.pos++];
    if (c === undefined) this.fail("\\ at end of pattern");
    switch (c) {
      case "d":
        return digit;
      case "D":
        return complement(digit);
      case "w":
        return word;
      case "W":
        return complement(word);
      case "s":
        return space;
      case "S":
        return complement(space);
      case "t":
        return single(0x09);
      case "n":
        return single(0x0a);
      case "v":
        return single(0x0b);
      case "f":
        return single(0x0c);
      case "r":
        return single(0x0d);
      case "x": {
        const hex = this.chars.slice(this.pos, this.pos + 2).join("");
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) this.fail("\\x needs two hex digits");
        this.pos += 2;
        return this.codePoint(parseInt(hex, 16));
      }
      case "u": {
        const rest = this.chars.slice(this.pos, this.pos + 10).join("");
        const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(rest);
        const plain = /^[0-9a-fA-F]{4}/.exec(rest);
        if (braced) {
          this.pos += braced[0].length;
          return this.codePoint(parseInt(braced[1], 16));
        }
        if (!plain) this.fail("\\u needs four hex digits or {hex}");
        this.pos += 4;
        return this.codePoint(parseInt(plain[0], 16));
      }
      case "b":
        // Reached only inside a class, where PCRE's `\b` is backspace (`atom` takes the boundary).
        return single(0x08);
      default:
        if (/[1-9]/.test(c)) this.fail("backreferences are not supported (patterns run on a linear-time engine)");
        if (/[0-9A-Za-z]/.test(c)) this.fail(`unsupported escape \\${c}`);
        return single(c.codePointAt(0)!);
    }
  }

  private codePoint(cp: number): Range[] {
    if (cp === 0 || cp > MAX_CODE_POINT || (cp >= 0xd800 && cp <= 0xdfff)) this.fail("invalid code point");
    return single(cp);
  }
}

/**
 * Rewrites `\Q...\E` (PCRE's quoting; `\E` optional at the end, a lone `\E` ignored) before
 * parsing: each quoted character becomes `\u{hex}`, which no later step reads as syntax, not even
 * as part of a `{n}` quantifier (PCRE's rule too). A quoted run inside a class stays in the class.
 */
function unquote(chars: string[]): string[] {
  const out: string[] = [];
  let quoted = false;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === "\\" && (chars[i + 1] === "E" || (chars[i + 1] === "Q" && !quoted))) {
      quoted = chars[++i] === "Q";
    } else if (quoted) out.push(..."\\u{", ...c.codePointAt(0)!.toString(16), "}");
    else if (c === "\\" && i + 1 < chars.length) out.push(c, chars[++i]);
    else out.push(c);
  }
  return out;
}

/**
 * `\Z` is `(?=\n?$)`, which RE2 cannot say. Where nothing in the pattern can follow it, though,
 * consuming that newline instead (`\n?$`) changes no answer; anywhere else it is refused.
 */
function checkEndZ(node: Node, last: boolean, fail: () => never): void {
  switch (node.t) {
    case "eolz":
      if (!last) fail();
      return;
    case "alt":
      for (const alt of node.alts) checkEndZ(alt, last, fail);
      return;
    case "seq":
      node.items.forEach((item, i) => checkEndZ(item, last && i === node.items.length - 1, fail));
      return;
    case "rep":
      checkEndZ(node.body, last && node.max <= 1, fail);
      return;
  }
}

function single(cp: number): Range[] {
  return [[cp, cp]];
}

function isSingle(ranges: Range[]): boolean {
  return ranges.length === 1 && ranges[0][0] === ranges[0][1];
}

function normalize(ranges: Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Range[] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** Complement over the code points a PostgreSQL string can hold (no NUL, no surrogates). */
function complement(ranges: Range[]): Range[] {
  const out: Range[] = [];
  let next = 1;
  for (const [lo, hi] of normalize(ranges)) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return withoutSurrogates(out);
}

function withoutSurrogates(ranges: Range[]): Range[] {
  const out: Range[] = [];
  for (const [lo, hi] of ranges) {
    if (hi < 0xd800 || lo > 0xdfff) out.push([lo, hi]);
    else {
      if (lo < 0xd800) out.push([lo, 0xd7ff]);
      if (hi > 0xdfff) out.push([0xe000, hi]);
    }
  }
  return out;
}

let casedCache: Array<[number, number[]]> | undefined;

/** Every code point with a single-code-point upper or lower case form (all lie below U+20000). */
function casedCodePoints(): Array<[number, number[]]> {
  if (casedCache) return casedCache;
  casedCache = [];
  for (let cp = 1; cp < 0x20000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    const variants = [ch.toLowerCase(), ch.toUpperCase()]
      .filter((v) => v !== ch && [...v].length === 1)
      .map((v) => v.codePointAt(0)!);
    if (variants.length > 0) casedCache.push([cp, variants]);
  }
  return casedCache;
}

const closures = new Map<string, Range[]>();

/**
 * Adds the simple upper and lower case forms of every member: our definition of `i`. Memoized:
 * a pattern repeating one class (`[^a]` x 250) paid the full scan per atom, 0.2 s of event loop.
 */
function caseClosure(ranges: Range[]): Range[] {
  const key = ranges.join(";");
  let closed = closures.get(key);
  if (!closed) {
    closed = computeCaseClosure(ranges);
    if (closures.size >= 1000) closures.delete(closures.keys().next().value!);
    closures.set(key, closed);
  }
  return closed;
}

function computeCaseClosure(ranges: Range[]): Range[] {
  const extra: Range[] = [];
  for (const [cp, variants] of casedCodePoints()) {
    if (ranges.some(([lo, hi]) => cp >= lo && cp <= hi)) for (const v of variants) extra.push([v, v]);
  }
  return extra.length === 0 ? ranges : normalize([...ranges, ...extra]);
}

type Dialect = "re2" | "pg";

function emit(node: Node, dialect: Dialect): string {
  switch (node.t) {
    case "bol":
      if (!node.multiline) return "^";
      return dialect === "re2" ? "(?m:^)" : `(?:^|(?<=${emitSet(newline, dialect)}))`;
    case "eol":
      if (!node.multiline) return "$";
      return dialect === "re2" ? "(?m:$)" : `(?:$|(?=${emitSet(newline, dialect)}))`;
    case "eolz":
      return `(?:${emitSet(newline, dialect)})?$`;
    case "boundary":
      return dialect === "re2" ? (node.negated ? "\\B" : "\\b") : pgBoundary(node.negated);
    case "alt":
      return node.alts.map((alt) => emit(alt, dialect)).join("|");
    case "seq":
      return node.items.map((item) => (item.t === "alt" ? `(?:${emit(item, dialect)})` : emit(item, dialect))).join("");
    case "set":
      return emitSet(node.ranges, dialect);
    case "rep": {
      const body = `(?:${emit(node.body, dialect)})`;
      if (node.min === 0 && node.max === Infinity) return `${body}*`;
      if (node.min === 1 && node.max === Infinity) return `${body}+`;
      if (node.min === 0 && node.max === 1) return `${body}?`;
      if (node.max === Infinity) return `${body}{${node.min},}`;
      return node.min === node.max ? `${body}{${node.min}}` : `${body}{${node.min},${node.max}}`;
    }
  }
}

/** PostgreSQL's `\y` and `\Y` take the locale's word characters: spelled out on PCRE's instead. */
function pgBoundary(negated: boolean): string {
  const w = emitSet(word, "pg");
  return negated ? `(?:(?<=${w})(?=${w})|(?<!${w})(?!${w}))` : `(?:(?<=${w})(?!${w})|(?<!${w})(?=${w}))`;
}

function emitSet(ranges: Range[], dialect: Dialect): string {
  const char = (cp: number) =>
    dialect === "re2" ? `\\x{${cp.toString(16)}}` : `\\U${cp.toString(16).padStart(8, "0")}`;
  // An empty class: only NUL would match, and no stored string holds NUL.
  if (ranges.length === 0) return `[^${char(1)}-${char(MAX_CODE_POINT)}]`;
  if (isSingle(ranges)) return char(ranges[0][0]);
  const body = ranges.map(([lo, hi]) => (lo === hi ? char(lo) : `${char(lo)}-${char(hi)}`)).join("");
  return `[${body}]`;
}
