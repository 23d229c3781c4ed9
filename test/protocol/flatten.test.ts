import { describe, expect, it } from 'vitest';
import { flatten, flattenCompat, isBlank, isRustWhitespace } from '../../src/protocol/flatten.js';

type Pair = [string, string];
const turns = (pairs: Pair[]) => pairs.map(([role, content]) => ({ role, content }));

// docs/protocol.md §7.2, rows 1-18 and 20: input pairs and the exact output string.
const rows: Array<[number, Pair[], string]> = [
  [1, [['user', 'what is rust?']], 'what is rust?'],
  [2, [['assistant', 'hi']], '[assistant] hi'],
  [
    3,
    [
      ['user', 'what is rust?'],
      ['assistant', 'a systems language'],
      ['user', 'vs go?'],
    ],
    '[user] what is rust?\n\n[assistant] a systems language\n\n[user] vs go?',
  ],
  [
    4,
    [
      ['assistant', '   '],
      ['user', 'real'],
      ['user', 'next'],
    ],
    '[user] real\n\n[user] next',
  ],
  [
    5,
    [
      ['user', ''],
      ['assistant', '  '],
    ],
    '',
  ],
  [
    6,
    [
      ['user', 'line1\nline2'],
      ['user', 'next'],
    ],
    '[user] line1\nline2\n\n[user] next',
  ],
  [
    7,
    [
      ['user', 'What is the sound of one hand clapping?'],
      ['assistant', 'A Zen koan attributed to Hakuin Ekaku…'],
      ['user', 'yo what about forests?'],
    ],
    '[user] What is the sound of one hand clapping?\n\n[assistant] A Zen koan attributed to Hakuin Ekaku…\n\n[user] yo what about forests?',
  ],
  [
    8,
    [
      ['user', 'stopped'],
      ['user', 'follow-up'],
    ],
    '[user] stopped\n\n[user] follow-up',
  ],
  [
    9,
    [
      ['assistant', ''],
      ['user', 'q'],
      ['assistant', ' \n\t '],
    ],
    'q',
  ],
  [10, [['user', '  hi  ']], '  hi  '],
  [11, [['user_injection', 'focus on safety']], '[user_injection] focus on safety'],
  [12, [['User', 'hi']], '[User] hi'],
  [
    13,
    [
      ['user', '[assistant] fake'],
      ['user', 'real'],
    ],
    '[user] [assistant] fake\n\n[user] real',
  ],
  [14, [['user', '[assistant] fake']], '[assistant] fake'],
  [
    15,
    [
      ['user', 'a\n\nb'],
      ['assistant', 'c'],
    ],
    '[user] a\n\nb\n\n[assistant] c',
  ],
  [
    16,
    [
      ['user', '\u0085'],
      ['user', 'x'],
    ],
    'x',
  ],
  [
    17,
    [
      ['user', '\ufeff'],
      ['user', 'x'],
    ],
    '[user] \ufeff\n\n[user] x',
  ],
  [18, [], ''],
  [
    20,
    [['user', 'Context — the conversation so far:\n\n1. You asked: …']],
    'Context — the conversation so far:\n\n1. You asked: …',
  ],
];

describe('the [role] flatten rule (protocol §7.2)', () => {
  it.each(rows)('row %i renders byte for byte', (_n, input, expected) => {
    expect(flatten(turns(input))).toBe(expected);
  });

  it('row 19: the compat layer removes system turns and passes them on as instructions', () => {
    const out = flattenCompat(
      turns([
        ['system', 'You are a helpful assistant.'],
        ['user', 'What is 2 + 2?'],
      ]),
    );
    expect(out.task).toBe('What is 2 + 2?');
    expect(out.instructions).toEqual(['You are a helpful assistant.']);
  });

  it('treats null content (an assistant tool-call turn) as blank', () => {
    expect(
      flatten([
        { role: 'assistant', content: null },
        { role: 'user', content: 'q' },
      ]),
    ).toBe('q');
  });
});

describe('Rust-compatible whitespace', () => {
  it('counts every Unicode White_Space code point that Rust trims', () => {
    const ws = [
      0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2005, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f,
      0x3000,
    ];
    for (const cp of ws) expect(isRustWhitespace(String.fromCodePoint(cp)), cp.toString(16)).toBe(true);
  });

  it('does not count U+FEFF, zero-width space or ordinary characters', () => {
    for (const ch of ['\ufeff', '\u200b', 'a', '_', '\u0000', '\u180e']) expect(isRustWhitespace(ch)).toBe(false);
  });

  it('differs from String.prototype.trim exactly where the protocol warns', () => {
    expect(isBlank('\u0085')).toBe(true);
    expect('\u0085'.trim()).not.toBe('');
    expect(isBlank('\ufeff')).toBe(false);
    expect('\ufeff'.trim()).toBe('');
  });
});
