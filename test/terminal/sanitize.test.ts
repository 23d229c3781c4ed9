import { describe, expect, it } from 'vitest';
import { TerminalSanitizer, oneLine, sanitizeForTerminal } from '../../src/terminal/sanitize.js';
import { TERMINAL_CONTROL, escapeCorpus } from './escape-corpus.js';

describe('sanitizeForTerminal (reliability #78, C17)', () => {
  for (const { name, payload, visible } of escapeCorpus) {
    it(`leaves only the visible text of: ${name}`, () => {
      const out = sanitizeForTerminal(payload);
      expect(out).toBe(visible);
      expect(out).not.toMatch(TERMINAL_CONTROL);
    });
  }

  it('keeps LF, TAB, printable ASCII, accents, CJK, emoji and joiners untouched', () => {
    const text = 'line one\n\tindented — café 東京 👩‍💻 ∑\nend';
    expect(sanitizeForTerminal(text)).toBe(text);
  });

  it('returns the very same string when there is nothing to strip', () => {
    const text = 'plain answer\n';
    expect(Object.is(sanitizeForTerminal(text), text)).toBe(true);
  });

  it('removes every sequence of the corpus when the text is split at every offset', () => {
    const all = escapeCorpus.map((c) => c.payload).join('|');
    const expected = sanitizeForTerminal(all);
    for (let cut = 0; cut <= all.length; cut++) {
      const s = new TerminalSanitizer();
      const out = s.push(all.slice(0, cut)) + s.push(all.slice(cut));
      expect(out, `split at ${cut}`).toBe(expected);
    }
  });

  it('removes a sequence delivered one character per chunk', () => {
    const s = new TerminalSanitizer();
    const out = [...'x\x1b]52;c;AAAA\x1b\\y\x1b[31mz'].map((ch) => s.push(ch)).join('');
    expect(out).toBe('xyz');
  });
});

describe('oneLine', () => {
  it('collapses newlines, tabs and runs of spaces into single spaces and trims', () => {
    expect(oneLine('  first\n\nsecond\tthird   fourth \r\n')).toBe('first second third fourth');
  });

  it('sanitises before collapsing, so escape sequences never reach stderr', () => {
    expect(oneLine('agent\x1b]8;;https://x\x1b\\Cortex\x1b]8;;\x1b\\A\u202e')).toBe('agentCortexA');
  });

  it('gives what sanitising, collapsing and trimming give, also for text its plain-line shortcut returns as is', () => {
    const slow = (t: string): string => sanitizeForTerminal(t).replace(/\s+/g, ' ').trim();
    const samples = [
      '',
      ' ',
      'plain title',
      'plain  title',
      ' lead',
      'trail ',
      'tab\there',
      'a\x7fb',
      'caf\u00e9',
      'x\u00a0y',
      ...escapeCorpus.map((e) => e.payload),
    ];
    for (const t of samples) expect(oneLine(t, 10_000), JSON.stringify(t)).toBe(slow(t));
    expect(oneLine('a b', 2)).toBe('a…');
  });

  it('cuts to the maximum length with a trailing ellipsis', () => {
    const out = oneLine('a'.repeat(500), 80);
    expect(out).toHaveLength(80);
    expect(out.endsWith('…')).toBe(true);
    expect(oneLine('short', 80)).toBe('short');
    expect(oneLine('a'.repeat(200))).toHaveLength(200);
    expect(oneLine('a'.repeat(201))).toHaveLength(200);
  });

  it('never leaves half of a surrogate pair before the ellipsis', () => {
    const out = oneLine(`abc${'😀'.repeat(10)}`, 6);
    expect(out).toBe('abc😀…');
    expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('shrinks a megabyte of hostile HTML to one bounded, inert line (reliability #81)', () => {
    const body = `<html>\x1b]52;c;${'A'.repeat(1 << 20)}\x07<body>\n${'<p>x</p>\n'.repeat(10000)}`;
    const out = oneLine(body, 300);
    expect(out.length).toBeLessThanOrEqual(300);
    expect(out).not.toMatch(TERMINAL_CONTROL);
    expect(out.startsWith('<html><body> <p>x</p>')).toBe(true);
  });
});
