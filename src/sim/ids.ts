const NAMED: Record<string, string> = {
  '\u0000': 'NUL',
  ' ': 'space',
  '\t': 'tab',
  '\n': 'newline',
  '\r': 'carriage return',
};

function isForbidden(ch: string): boolean {
  const cp = ch.codePointAt(0) ?? 0;
  return ch === ' ' || ch === '.' || ch === '*' || ch === '>' || ch === '/' || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

const describe = (ch: string): string =>
  NAMED[ch] ??
  (/[.*>/]/.test(ch) ? `'${ch}'` : `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`);

/**
 * The NATS-incompatible characters in an id (docs/protocol.md §1), each described once in the
 * order found; empty when the id is acceptable.
 */
export function forbiddenCharacters(id: string): string[] {
  const found: string[] = [];
  for (const ch of id) {
    if (!isForbidden(ch)) continue;
    const d = describe(ch);
    if (!found.includes(d)) found.push(d);
  }
  return found;
}

/** A compat thread header made safe to embed in a job id; forbidden characters become `_`. */
export function threadBaseOf(header: string): string {
  let out = '';
  for (const ch of header.trim()) out += isForbidden(ch) ? '_' : ch;
  return `oc-${out}`;
}
