/**
 * Credentials never reach a log or `_debug` (issue 17 item 7). Every form is redacted as the
 * server reads it, i.e. after percent-decoding: `?%74oken=` authenticates like `?token=`, so it
 * is redacted like it; names are compared case-insensitively, which redacts more than is read.
 */
export const REDACTED = "[redacted]";

/** Headers whose whole value is a credential (Authorization: Token/Bearer/SessionId, cookies). */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(["authorization", "proxy-authorization", "cookie", "set-cookie"]);
/** Headers whose value is a URL that may carry `?token=` (a page linking to file content). */
const URL_HEADERS: ReadonlySet<string> = new Set(["referer", "location", "content-location"]);
const CREDENTIAL_PARAMS: ReadonlySet<string> = new Set(["token"]);

/**
 * The segment after `_tokens/documents/` in a path: a token may be addressed by its secret
 * (CONTRACT §9), and an id cannot be told from a secret, so it is always the secret's case.
 */
export function tokenPathSegment(url: string): string | undefined {
  const path = url.split(/[?#]/, 1)[0];
  const segments = path.split("/");
  for (let i = 0; i + 2 < segments.length; i++) {
    if (decodeLeniently(segments[i]).toLowerCase() === "_tokens" && decodeLeniently(segments[i + 1]).toLowerCase() === "documents" && segments[i + 2])
      return segments[i + 2];
  }
  return undefined;
}

const CREDENTIAL_WORDS = new Set(["authorization", "auth", "token", "secret", "key", "apikey", "password", "passwd", "cookie", "signature", "session", "credential", "credentials"]);

/**
 * A header name that carries a credential, as far as its words tell (`Authorization`,
 * `X-Api-Key`, `apikey`, `X-Auth-Token`, `X-Access-Token`, `Webhook-Signature`): hooks send
 * whatever headers their owner set, and their history and views must not show those values.
 */
export function isCredentialHeader(name: string): boolean {
  return name.toLowerCase().split(/[-_]/).some((word) => CREDENTIAL_WORDS.has(word));
}

/** The URL with the value of every credential query parameter, and a token path's secret, replaced. */
export function redactUrl(url: string): string {
  const secret = tokenPathSegment(url);
  if (secret !== undefined) {
    const at = url.indexOf(`/${secret}`, url.search(/\/_tokens\/|\/%5ftokens\//i));
    if (at >= 0) url = `${url.slice(0, at + 1)}${REDACTED}${url.slice(at + 1 + secret.length)}`;
  }
  const queryStart = url.indexOf("?");
  if (queryStart < 0) return url;
  const hashStart = url.indexOf("#", queryStart);
  const queryEnd = hashStart < 0 ? url.length : hashStart;
  const params = url
    .slice(queryStart + 1, queryEnd)
    .split("&")
    .map((param) => {
      const equals = param.indexOf("=");
      const name = equals < 0 ? param : param.slice(0, equals);
      return CREDENTIAL_PARAMS.has(decodeLeniently(name).trim().toLowerCase()) ? `${name}=${REDACTED}` : param;
    });
  // The fragment never reaches a server, but a logged URL may carry one: drop it with the query's care.
  return `${url.slice(0, queryStart)}?${params.join("&")}${hashStart < 0 ? "" : redactFragment(url.slice(hashStart))}`;
}

/** A header value as it may be logged. */
export function redactHeader(name: string, value: string): string {
  const lower = name.toLowerCase();
  if (CREDENTIAL_HEADERS.has(lower)) return REDACTED;
  if (URL_HEADERS.has(lower)) return redactUrl(value);
  return value;
}

/**
 * Percent-decoding that never throws: each valid escape (`%74`, UTF-8 sequences) is decoded,
 * malformed ones (`%zz`) stay as written; `+` is a space, as in form encoding.
 */
function decodeLeniently(text: string): string {
  const spaced = text.replace(/\+/g, " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced.replace(/(%[0-9a-f]{2})+/gi, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      }
    });
  }
}

function redactFragment(fragment: string): string {
  return /token/i.test(decodeLeniently(fragment)) ? `#${REDACTED}` : fragment;
}
