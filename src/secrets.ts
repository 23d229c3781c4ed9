/**
 * What never leaves nsed as written: the bearer token it knows, and anything shaped like a
 * credential (a `Bearer xyz`, the userinfo of a URL, a query parameter whose name looks like a
 * credential), each replaced by `***` (docs/reliability.md #74, #88, #89). A leaf: the store, the
 * exports, stderr and the error messages all pass text through the same functions.
 */

const REDACTED = '***';

// A run's tokens shorter than this are not searched for in what it stores and shows: replacing
// every "ab" of a transcript would garble it, and such a token guards nothing. (An error
// message is redacted of any token: a garbled message costs nothing.)
const MIN_TOKEN_CHARS = 4;

/** Words that make a query parameter's name a credential (`access_token`, `X-Amz-Signature`, `apiKey`). */
const CREDENTIAL_WORDS = new Set([
  'token',
  'key',
  'apikey',
  'auth',
  'sig',
  'signature',
  'password',
  'passwd',
  'pwd',
  'pass',
  'secret',
  'credential',
  'credentials',
  'jwt',
  'bearer',
]);

/** Whether a query parameter named `name` looks like it carries a credential. */
export function isCredentialName(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // A malformed escape: judge the name as written.
  }
  const words = decoded
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
  return words.some((w) => CREDENTIAL_WORDS.has(w)) || CREDENTIAL_WORDS.has(words.join(''));
}

// A credential after the scheme word: six characters or more with a digit or a symbol in them,
// so that prose ("the bearer token", "a basic idea") is left alone.
const BEARER_CREDENTIAL = /\b(Bearer|Basic)\s+(?=[A-Za-z]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{6,}/gi;
// No URL part holds a control character (RFC 3986), so a credential-shaped part ends at one: the
// colour code after a parameter's value is a terminal's, never replaced with the value.
// scheme://user:password@host — the userinfo, up to the @ that ends it. The scheme starts a word,
// or follows a colour code (`ESC[2mhttps://`, where there is no word boundary); never anywhere
// inside a word, which would try every position of a long one (quadratic on a 1.5 MB answer).
// eslint-disable-next-line no-control-regex
const USERINFO = /(?:\b|(?<=\x1b\[[0-9;]*m))([a-z][a-z0-9+.-]*:\/\/)[^\s\x00-\x1f\x7f/?#@"'<>\\]+@/gi;
// ?name=value, &name=value or ;name=value, in a URL or in prose quoting one.
// eslint-disable-next-line no-control-regex
const QUERY_PARAM = /([?&;])([^\s\x00-\x1f\x7f=&#?;"'<>\\]+)=([^\s\x00-\x1f\x7f&#;"'<>\\]*)/g;

// What BEARER_CREDENTIAL, USERINFO and QUERY_PARAM each need in a match: the scheme word, an @, an =.
const MAY_HOLD_CREDENTIAL = /[@=]|bearer|basic/i;

/** Credential-shaped parts of `text` (Bearer credentials, URL userinfo, credential parameters) as `***`. */
export function redactCredentials(text: string): string {
  // Each pattern's match holds one of these: without any, the three scans below change nothing.
  // Every string of every record written passes here (a batch writes thousands), and most hold none.
  if (!MAY_HOLD_CREDENTIAL.test(text)) return text;
  return text
    .replace(BEARER_CREDENTIAL, `$1 ${REDACTED}`)
    .replace(USERINFO, (all, scheme: string) => (all === `${scheme}${REDACTED}@` ? all : `${scheme}${REDACTED}@`))
    .replace(QUERY_PARAM, (all, sep: string, name: string, value: string) =>
      value === '' || value === REDACTED || !isCredentialName(name) ? all : `${sep}${name}=${REDACTED}`,
    );
}

// What each of the three patterns above needs in the JSON text of a document for it to match a
// string of that document, when the text writes no character as `\uXXXX` or `\/` (then every
// other character of a string but `"`, `\` and the controls stands in the text as itself, and a
// whitespace character as itself or as `\t`, `\n`, `\r`, `\f`): each pattern without its look
// at the character before the match, over characters that stand as themselves. A superset: a
// text these find nothing in holds no string that redactCredentials changes (mayRedactJson). Each
// with a character its match holds: a search for one character is a fraction of a regular
// expression's scan over a 4 MB session.
const JSON_HINTS: ReadonlyArray<readonly [string, RegExp]> = [
  ['', /(?:bearer|basic)(?:\s|\\[tnrf])+(?=[A-Za-z]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{6}/i],
  // eslint-disable-next-line no-control-regex
  ['@', /:\/\/[^\s\x00-\x1f\x7f/?#@"'<>\\]+@/],
  // eslint-disable-next-line no-control-regex
  ['=', /[?&;][^\s\x00-\x1f\x7f=&#?;"'<>\\]+=[^\s\x00-\x1f\x7f&#;"'<>\\]/],
];

/**
 * Whether redacting the document `json` holds could change any of its strings or keys (false
 * only when it cannot), judged on the text without parsing it: a document read from the store was
 * redacted as it was written, so walking its thousands of strings again to show it finds nothing
 * unless someone edited the file, an older nsed wrote it, or this run knows another token.
 * An escape that could hide a character (`\u`, `\/`) says maybe.
 */
export function mayRedactJson(json: string, tokens: readonly string[] = []): boolean {
  if (json.includes('\\u') || json.includes('\\/')) return true;
  for (const token of tokens) {
    if (token === '') continue;
    // Each form redactSecrets replaces, as it stands inside a JSON string.
    for (const form of tokenForms(token)) if (json.includes(JSON.stringify(form).slice(1, -1))) return true;
  }
  return JSON_HINTS.some(([needs, hint]) => json.includes(needs) && hint.test(json));
}

/** A URL as nsed stores and shows it: its credentials (userinfo, credential parameters) as `***`. */
export function redactUrl(url: string): string {
  return redactCredentials(url);
}

/** The forms a token takes in text nsed writes: as is, and escaped inside a JSON string. */
function tokenForms(token: string): string[] {
  const json = JSON.stringify(token).slice(1, -1);
  return json === token ? [token] : [token, json];
}

/** Replaces every occurrence of the tokens, then every credential-shaped part, by `***`. */
export function redactSecrets(text: string, tokens?: string | readonly string[]): string {
  let out = text;
  const list = tokens === undefined ? [] : typeof tokens === 'string' ? [tokens] : tokens;
  for (const token of list) {
    if (token === '') continue;
    for (const form of tokenForms(token)) out = out.split(form).join(REDACTED);
  }
  return redactCredentials(out);
}

/**
 * The secrets one run knows: the token from NSED_TOKEN at the start, the token file's once a
 * connection reads it. Everything nsed writes to the store, an export or stderr goes through
 * `redact` (docs/reliability.md #89).
 */
export class Secrets {
  private readonly known: string[] = [];

  add(token: string | undefined): void {
    const t = token?.trim();
    if (t !== undefined && t.length >= MIN_TOKEN_CHARS && !this.known.includes(t)) this.known.push(t);
  }

  get tokens(): readonly string[] {
    return this.known;
  }

  redact(text: string): string {
    return redactSecrets(text, this.known);
  }

  /** `value` with every string and key redacted (redactDeep); `value` itself when nothing in it changes. */
  redactValue<T>(value: T): T {
    return redactDeep(value, (text) => this.redact(text));
  }

  /**
   * `record`, parsed from the JSON text `json`, with every string and key redacted (redactDeep);
   * `added`: strings the reader put in that the text does not hold (a session's id, from its
   * file name). Returned as it is when the text shows there is nothing to redact (mayRedactJson).
   */
  redactRecord<T>(record: T, json: string, added: readonly string[] = []): T {
    const may = mayRedactJson(json, this.known) || added.some((a) => this.redact(a) !== a);
    return may ? redactDeep(record, (text) => this.redact(text)) : record;
  }

  /** A redactor for text written in pieces (stderr): a secret split across two writes is still caught. */
  streaming(): StreamRedactor {
    return new StreamRedactor(this);
  }
}

// The tail of a piece that may be the start of a credential-shaped part: an unfinished query
// parameter, URL scheme or authority, or a Bearer/Basic keyword (or a prefix of one) with what
// may be the first characters of its credential.
const OPEN_TAIL =
  // eslint-disable-next-line no-control-regex
  /(?:[?&;][^\s\x00-\x1f\x7f&#;"'<>\\]*|[a-z][a-z0-9+.-]*:(?:\/\/[^\s\x00-\x1f\x7f/?#"'<>\\]*|\/)?|\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/=-]*|\b(?:Bearer|Basic)|\b(?:B|Be|Bea|Bear|Beare|Ba|Bas|Basi))$/i;
const MAX_HELD = 4096;

// A terminal escape sequence, whole (CSI such as a spinner's `ESC[?2026h`; OSC, DCS, SOS, PM or APC
// up to BEL or ST; a two-byte escape) or cut off by the end of the text.
const ESCAPE_SEQUENCE =
  // eslint-disable-next-line no-control-regex
  /\x1b(?:\[[0-?]*[ -/]*(?:[@-~]|$)|[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\|\x1b?$)|[ -/]*(?:[0-~]|$))/g;

/** Where the text after the last escape sequence of `text` begins (its length when one is cut off at the end). */
function afterLastEscape(text: string): number {
  let end = 0;
  if (text.includes('\x1b')) for (const m of text.matchAll(ESCAPE_SEQUENCE)) end = m.index + m[0].length;
  return end;
}

/**
 * Redacts text that arrives in pieces. What could be the first part of a secret (a prefix of a
 * known token, an unfinished URL, parameter or Bearer credential) is held back, unredacted, until
 * the next piece shows what it is, or until `end`; everything before it is redacted and passed on.
 * A terminal escape sequence is never held back nor cut: no secret spans one, so only the text
 * after the last of them is looked at (docs/reliability.md #165).
 */
export class StreamRedactor {
  private held = '';

  constructor(private readonly secrets: Secrets) {}

  push(piece: string): string {
    const raw = this.held + piece;
    const keep = Math.min(this.tailToHold(raw), MAX_HELD);
    this.held = raw.slice(raw.length - keep);
    return this.secrets.redact(raw.slice(0, raw.length - keep));
  }

  end(): string {
    const rest = this.secrets.redact(this.held);
    this.held = '';
    return rest;
  }

  private tailToHold(whole: string): number {
    const text = whole.slice(afterLastEscape(whole));
    let keep = OPEN_TAIL.exec(text)?.[0].length ?? 0;
    for (const token of this.secrets.tokens) {
      for (let n = Math.min(token.length - 1, text.length); n > keep; n--) {
        if (text.endsWith(token.slice(0, n))) {
          keep = n;
          break;
        }
      }
    }
    return keep;
  }
}

/**
 * `value` with `redact` applied to every string in it, object keys as well as values
 * (a verdict's `scores` is keyed by the server's agent ids, which may echo the token). String by
 * string, not over the JSON text, so that no replacement can break a document's syntax. A
 * value with nothing to redact is returned as it is, not copied: treat the result as read-only.
 */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  // Most records hold nothing to redact: one walk that allocates nothing says so, and the record
  // is returned as it is; only one that changes is copied (showing a 1,000-turn session spent a
  // third of its time copying it).
  return changes(value, redact, new Set()) ? (mapStrings(value, redact) as T) : value;
}

/** Whether mapStrings would return anything but an equal copy of `value`; `keys`: keys known to stay. */
function changes(value: unknown, fn: (text: string) => string, keys: Set<string>): boolean {
  if (typeof value === 'string') return fn(value) !== value;
  if (Array.isArray(value)) return value.some((v) => changes(v, fn, keys));
  if (typeof value === 'object' && value !== null) {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return true;
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue;
      // A record repeats a few keys thousands of times (`role`, `content`): each is asked once.
      if (!keys.has(k)) {
        if (fn(k) !== k) return true;
        keys.add(k);
      }
      if (changes((value as Record<string, unknown>)[k], fn, keys)) return true;
    }
  }
  return false;
}

function mapStrings(value: unknown, fn: (text: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    // defineProperty: a `__proto__` key read from a file stays a key, never a prototype.
    for (const [k, v] of Object.entries(value)) {
      const key = distinctKey(out, fn(k));
      Object.defineProperty(out, key, {
        value: mapStrings(v, fn),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/** `key`, or `key (2)`, `key (3)`...: two keys that redact alike stay two entries. */
function distinctKey(out: Record<string, unknown>, key: string): string {
  if (!Object.hasOwn(out, key)) return key;
  for (let n = 2; ; n++) if (!Object.hasOwn(out, `${key} (${n})`)) return `${key} (${n})`;
}

/** The secrets of a run, knowing NSED_TOKEN and GitHub's token from the start (docs/reliability.md #89). */
export function runSecrets(env: Readonly<Record<string, string | undefined>>): Secrets {
  const secrets = new Secrets();
  secrets.add(env['NSED_TOKEN']);
  // The GitHub token --check-run writes with is as secret as the orchestrator's (docs/ci-review.md).
  secrets.add(env['GITHUB_TOKEN']);
  secrets.add(env['GH_TOKEN']);
  return secrets;
}
