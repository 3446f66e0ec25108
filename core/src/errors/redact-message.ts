// What of an error's message may reach a log line. Messages of errors we did not write carry
// secrets: viem's name the RPC URL ("URL: https://eth-mainnet.g.alchemy.com/v2/<API key>")
// and the JSON-RPC request ("Request body: {…}"); a database or fetch error can name its
// connection string or URL, credentials included. So every message a log line carries goes
// through `redactMessage`: a URL keeps its scheme, host and port only; viem's request bodies
// are dropped; anything shaped like our keys, surface tokens, webhook secrets, link codes, a
// master key, or a bearer/password/token value is masked; and it is cut to a bounded length.
// Deliberately blunt: an operator needs to tell a refusal from a timeout from a 429, and none
// of that lives in a URL's path or a token.

/** The longest message a log line carries, after redaction. */
export const MAX_MESSAGE_CHARS = 300;

const ELIDED = '…';

// scheme://[userinfo@]host[:port][/path][?query][#fragment], up to a space, quote or angle
// bracket: stopping short could leave part of a path behind, so the URL runs that far, and
// the punctuation it ends with (a closing parenthesis, a full stop) is given back after it.
// The scheme's length is bounded so that no text makes the search quadratic ("a.a.a.a…").
const URL_PATTERN = /\b([a-z][a-z0-9+.-]{0,31}):\/\/([^\s"'`<>]*)/gi;
const TRAILING = new Set(').,;:!?]}');

/** A URL as its scheme, host and port; "/…" where anything else (userinfo, path, query) was. */
function redactUrl(_match: string, scheme: string, rest: string): string {
  // Walked back by hand: a pattern anchored at the end would be quadratic on a run of these.
  let end = rest.length;
  while (end > 0 && TRAILING.has(rest[end - 1] as string)) end--;
  return `${originOf(scheme, rest.slice(0, end))}${rest.slice(end)}`;
}

function originOf(scheme: string, rest: string): string {
  const authorityEnd = rest.search(/[/?#\\]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  const after = authorityEnd === -1 ? '' : rest.slice(authorityEnd);
  const at = authority.lastIndexOf('@');
  const host = at === -1 ? authority : authority.slice(at + 1);
  const elided = at !== -1 || (after !== '' && after !== '/');
  return `${scheme}://${host}${elided ? `/${ELIDED}` : after}`;
}

/** Shapes of secrets, each with what stands in its place. */
// What stands in a secret's place names its kind, never its prefix: a line holding "prs_live_"
// reads as a leaked key to anyone checking logs for one (test/src/logging.test.ts does).
const SECRET_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  // API keys and surface tokens: prs_live_…, prs_test_…, prs_surface_… (core's key-secret.ts).
  [/\bprs_surface_[0-9A-Za-z]+/g, '[surface token]'],
  [/\bprs_([a-z]+)_[0-9A-Za-z]+/g, '[$1 key]'],
  // Webhook secrets (Standard Webhooks' whsec_ + base64).
  [/\bwhsec_[A-Za-z0-9+/=]+/g, '[webhook secret]'],
  // Link codes: 20 characters of their alphabet (core's links/link-service.ts).
  [/\b[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{20}\b/g, '[link code]'],
  // A master key or any other 32 bytes written as bare hex (0x-prefixed hashes and addresses stay).
  [/(?<![0-9A-Za-z])[0-9a-fA-F]{64}(?![0-9A-Za-z])/g, '[64 hex]'],
  // Authorization values and key=value credentials (a libpq connection string, a query copied out).
  [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, `$1 ${ELIDED}`],
  [/\b(password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|auth)(["']?\s*[=:]\s*["']?)[^\s"',;&]+/gi, `$1$2${ELIDED}`],
];

/** viem's message lines that carry what was sent (and its version, noise in a bounded line): dropped whole. */
const DROPPED_LINE = /^\s*(Request body|Version):/i;

/** How much of a message the secret patterns read (URLs are shortened first, wherever they are). */
const READ_CHARS = MAX_MESSAGE_CHARS * 4;

/** How much of a message is read at all: error messages are short, save a request body's. */
const RAW_CHARS = 64 * 1024;

/** The first `n` characters, less the word cut there (it could be a secret too short to be recognised). */
function cut(text: string, n: number): string {
  if (text.length <= n) return text;
  // Walked back by hand, as in redactUrl: /\S*$/ is quadratic on a long word.
  let end = n;
  while (end > 0 && !/\s/.test(text[end - 1] as string)) end--;
  return `${text.slice(0, end)}${ELIDED}`;
}

/** A message fit for a log line: one line, no URL path or query, no secret, at most MAX_MESSAGE_CHARS. */
export function redactMessage(message: string): string {
  let text = cut(message, RAW_CHARS)
    .split(/\r?\n/)
    .filter((line) => !DROPPED_LINE.test(line))
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' | ');
  text = text.replace(URL_PATTERN, redactUrl);
  text = cut(text, READ_CHARS);
  for (const [pattern, replacement] of SECRET_PATTERNS) text = text.replace(pattern, replacement);
  return text.length <= MAX_MESSAGE_CHARS ? text : `${text.slice(0, MAX_MESSAGE_CHARS - 1)}${ELIDED}`;
}
