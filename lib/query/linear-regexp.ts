import { RE2JS } from "re2js";

/**
 * A RegExp-like object on RE2 (re2js): linear time in the input whatever the pattern. For JSON
 * Schema `pattern`s (collection schemas, hook conditions), which come from requests and would
 * otherwise run on V8's backtracking engine (`^(a+)+$` against a long string blocks the event
 * loop for seconds). Patterns RE2 cannot express (backreferences, lookarounds) throw, so the
 * schema is refused when it is saved. Plug into ajv as `code: { regExp: linearRegExp }`.
 */
export function linearRegExp(pattern: string, flags = ""): { test(input: string): boolean; toString(): string } {
  const compiled = RE2JS.compile(pattern);
  // ajv keeps one compiled pattern per `toString()` in the instance's scope: without its own,
  // every pattern read "[object Object]" and reused the first one the process had compiled.
  return { test: (input: string) => compiled.test(input), toString: () => `/${pattern}/${flags}` };
}
// ajv's RegExpEngine type asks how standalone validation code would import it (unused here).
linearRegExp.code = 'require("re2js").RE2JS.compile';
