/**
 * JSON.stringify leaves DEL, the C1 controls, BiDi controls and U+2028/U+2029 raw. They only
 * occur inside strings, where `\uXXXX` means the same to a parser, so escaping them keeps an
 * export identical as data and inert when someone `cat`s it on a terminal (docs/reliability.md #78). The same
 * rule as output/ndjson.ts, for indented documents.
 */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escapeChar = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** A JSON document indented by two spaces, terminal-inert, ending in a newline. */
export function inertJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(UNSAFE_IN_JSON, escapeChar)}\n`;
}
