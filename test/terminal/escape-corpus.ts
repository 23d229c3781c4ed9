/**
 * Hostile text (docs/reliability.md #78, C17): each entry is a payload and what must remain of it
 * after sanitising for a terminal.
 */
export const escapeCorpus: Array<{ name: string; payload: string; visible: string }> = [
  { name: 'CSI colour', payload: '\x1b[31mred\x1b[0m', visible: 'red' },
  {
    name: 'CSI cursor up and erase line (rewrites earlier output)',
    payload: 'ok\x1b[2A\x1b[2Kfake',
    visible: 'okfake',
  },
  { name: 'CSI cursor position', payload: '\x1b[10;20Hx', visible: 'x' },
  { name: 'CSI private mode (alternate screen)', payload: '\x1b[?1049hy', visible: 'y' },
  { name: 'OSC 0 title with BEL', payload: 'a\x1b]0;pwned title\x07b', visible: 'ab' },
  { name: 'OSC 0 title with ST', payload: 'a\x1b]0;pwned title\x1b\\b', visible: 'ab' },
  {
    name: 'OSC 8 disguised link',
    payload: '\x1b]8;;https://evil.example/\x1b\\click here\x1b]8;;\x1b\\',
    visible: 'click here',
  },
  { name: 'OSC 52 clipboard write with BEL', payload: '\x1b]52;c;cm0gLXJmIH4K\x07done', visible: 'done' },
  { name: 'OSC 52 clipboard write with ST', payload: '\x1b]52;c;cm0gLXJmIH4K\x1b\\done', visible: 'done' },
  { name: 'DCS request', payload: '\x1bP+q544e\x1b\\z', visible: 'z' },
  { name: 'APC graphics', payload: '\x1b_Gf=100;AAAA\x1b\\z', visible: 'z' },
  { name: 'PM and SOS strings', payload: '\x1b^pm\x1b\\\x1bXsos\x1b\\z', visible: 'z' },
  { name: 'ESC c full reset', payload: 'before\x1bcafter', visible: 'beforeafter' },
  { name: 'ESC 7 / ESC 8 cursor save and restore', payload: '\x1b7x\x1b8', visible: 'x' },
  { name: 'charset switch ESC ( 0', payload: '\x1b(0lqk\x1b(B', visible: 'lqk' },
  { name: '8-bit CSI', payload: '\u009b31mred', visible: 'red' },
  { name: '8-bit OSC 52 ended by 8-bit ST', payload: '\u009d52;c;AAAA\u009cok', visible: 'ok' },
  { name: 'other C1 controls', payload: 'a\u0085b\u008dc\u0084', visible: 'abc' },
  {
    name: 'BiDi overrides and isolates',
    payload: 'abc\u202edcba\u202c\u2066x\u2069\u200e\u200f\u061c',
    visible: 'abcdcbax',
  },
  {
    name: 'C0 controls other than LF and TAB, and DEL',
    payload: 'a\x00b\x07c\x08d\x0b\x0c\re\x7ff',
    visible: 'abcdef',
  },
  { name: 'an unterminated OSC swallows the rest', payload: 'kept\x1b]52;c;AAAA', visible: 'kept' },
  { name: 'a CSI broken by a control character', payload: '\x1b[12\x07x', visible: 'x' },
  { name: 'CAN aborts a string', payload: '\x1b]0;t\x18shown', visible: 'shown' },
];

/** Any character that could act on a terminal: C0 except LF and TAB, DEL, C1, BiDi controls. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point of this pattern
export const TERMINAL_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
