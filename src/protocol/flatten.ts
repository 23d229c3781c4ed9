/**
 * The `[role]` flatten rule of docs/protocol.md §7.1, byte-compatible with the Rust
 * `flatten_conversation` that the orchestrator and the reference client share.
 */

export interface FlattenTurn {
  role: string;
  content: string | null;
}

/**
 * Unicode `White_Space`, which is what Rust's `str::trim` strips. JavaScript's `trim()`
 * disagrees on two code points (it strips U+FEFF and keeps U+0085), so it cannot be used.
 */
export function isRustWhitespace(ch: string | number): boolean {
  const cp = typeof ch === 'number' ? ch : ch.codePointAt(0);
  if (cp === undefined) return false;
  if (cp >= 0x09 && cp <= 0x0d) return true;
  if (cp >= 0x2000 && cp <= 0x200a) return true;
  switch (cp) {
    case 0x20:
    case 0x85:
    case 0xa0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202f:
    case 0x205f:
    case 0x3000:
      return true;
    default:
      return false;
  }
}

/** True when `text` is empty after a Rust `trim`. */
export function isBlank(text: string | null | undefined): boolean {
  if (text === null || text === undefined) return true;
  for (const ch of text) {
    if (!isRustWhitespace(ch)) return false;
  }
  return true;
}

/**
 * Renders turns as one task string: blank turns dropped, a lone `user` turn bare, anything
 * else as `[role] content` blocks joined by a blank line. Content is never trimmed or escaped.
 */
export function flatten(turns: ReadonlyArray<FlattenTurn>): string {
  const kept = turns.filter((t) => !isBlank(t.content));
  const only = kept[0];
  if (kept.length === 1 && only !== undefined && only.role === 'user') return only.content ?? '';
  return kept.map((t) => `[${t.role}] ${t.content ?? ''}`).join('\n\n');
}

/**
 * What the compat layer does with a `messages` array: `system` turns leave the task and
 * travel as separate instructions; the rest is flattened.
 */
export function flattenCompat(messages: ReadonlyArray<FlattenTurn>): { task: string; instructions: string[] } {
  const instructions: string[] = [];
  const rest: FlattenTurn[] = [];
  for (const m of messages) {
    if (m.role === 'system') {
      if (!isBlank(m.content)) instructions.push(m.content ?? '');
    } else {
      rest.push(m);
    }
  }
  return { task: flatten(rest), instructions };
}
