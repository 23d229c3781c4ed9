import { redactSecrets, redactUrl } from '../secrets.js';

/**
 * Making server-controlled text safe to put in a one-line error message: terminal escape
 * sequences and control characters removed (docs/reliability.md #78, #81), the bearer token and
 * anything shaped like a credential replaced by `***` (secrets.ts; docs/reliability.md #74, #88), and the length bounded.
 */

export const MESSAGE_MAX_CHARS = 200;

// CSI, OSC (BEL or ST terminated, or cut off), DCS/SOS/PM/APC strings, two-byte escapes,
// and their 8-bit C1 forms. Removing only ESC would leave visible debris such as `[31m`.
const ESCAPE_SEQUENCES =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]?|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[PX^_][^\u001b]*(?:\u001b\\)?|\u001b[\s\S]?|\u009b[0-?]*[ -/]*[@-~]?|[\u0090\u0098\u009d\u009e\u009f][^\u0007\u001b\u009c]*[\u0007\u009c]?/g;

// C0, DEL, C1, and the bidirectional controls that can reorder what a reader sees.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Removes escape sequences and control characters; whitespace runs become one space. */
export function stripControls(text: string): string {
  return text.replace(ESCAPE_SEQUENCES, '').replace(CONTROL_CHARS, ' ').replace(/\s+/g, ' ').trim();
}

/** Cuts to `max` code points (never inside a surrogate pair), marking the cut with `…`. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  if (points.length <= max) return text;
  return `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/**
 * The one function every piece of server text goes through before it reaches a message.
 * Redaction runs before and after stripping, because removing control characters can join
 * the halves of a token the server split on purpose; truncation runs last so it never cuts
 * a token in half and leaves its prefix visible.
 */
export function sanitizeServerText(text: string, token?: string, max = MESSAGE_MAX_CHARS): string {
  return truncate(redactSecrets(stripControls(redactSecrets(text, token)), token), max);
}

/** An identifier (job id, room id, a URL that does not parse) shown inside a message: sanitised, credentials out, kept short. */
export function showId(id: string): string {
  return sanitizeServerText(redactUrl(id), undefined, 80);
}

/** `scheme://host[:port]/path` of a URL, without credentials, query or fragment. */
export function displayUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** `host:port` with the scheme's default port filled in, for "cannot reach ..." messages. */
export function hostPort(url: URL): string {
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  return `${url.hostname}:${port}`;
}
