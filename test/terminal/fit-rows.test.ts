// How a printed progress line is laid out in rows of a terminal's width (terminal/fit-rows.ts):
// broken between its ` · ` parts, then between words, never inside a word; detail that no row can
// show whole is dropped. string-width is the measure the terminal path uses.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { ECHO_COLUMNS, fitRows, liveRowRoom, printedRowRoom } from '../../src/terminal/fit-rows.js';

const SESSION_LINE =
  'session 20261206-065aaef7 · job oc-thread-8e37eda1e713d06add4f1989c2f4e248-1796533826232 · policy nsed:fast';
const ROUND_LINE = 'round 1/3 · 3 candidates · leader CortexC 0.39 · all candidates: 2 wrong, 8 contested';
const WIDTHS = [40, 79, 120];

/** The words of a line or of its rows, separators left out: what a reader reads, in order. */
const words = (text: string): string[] => text.split(/\s+/).filter((w) => w !== '' && w !== '·');

/** Whether `part` is `whole` with some items left out, the rest in order. */
function isSubsequence(part: readonly string[], whole: readonly string[]): boolean {
  let i = 0;
  for (const w of whole) if (w === part[i]) i++;
  return i === part.length;
}

describe('a printed line at a width', () => {
  it('is one row, unchanged, when it fits', () => {
    expect(fitRows(ROUND_LINE, printedRowRoom(120), stringWidth)).toEqual([ROUND_LINE]);
  });

  for (const columns of WIDTHS) {
    it(`never takes a row wider than ${columns - 1} columns, nor breaks a word, at ${columns} columns`, () => {
      for (const line of [SESSION_LINE, ROUND_LINE]) {
        const rows = fitRows(line, printedRowRoom(columns), stringWidth);
        for (const r of rows) expect(stringWidth(r), r).toBeLessThanOrEqual(columns - 1);
        // Every word on the rows is a whole word of the line, in the line's order.
        const shown = rows.flatMap(words);
        expect(isSubsequence(shown, words(line)), rows.join('\n')).toBe(true);
        // A row after the first is indented: it continues the line above.
        for (const r of rows.slice(1)) expect(r).toMatch(/^ {2}\S/);
      }
    });
  }

  it('breaks a round line between its parts: at 79 the counts go on a row of their own', () => {
    expect(fitRows(ROUND_LINE, printedRowRoom(79), stringWidth)).toEqual([
      'round 1/3 · 3 candidates · leader CortexC 0.39',
      '  all candidates: 2 wrong, 8 contested',
    ]);
  });

  it('drops a job id no row can show whole (at 40), and keeps the session and the policy', () => {
    expect(fitRows(SESSION_LINE, printedRowRoom(40), stringWidth)).toEqual([
      'session 20261206-065aaef7',
      '  policy nsed:fast',
    ]);
    // At 79 the id fits on a row of its own, and is kept.
    expect(fitRows(SESSION_LINE, printedRowRoom(79), stringWidth)).toEqual([
      'session 20261206-065aaef7',
      '  job oc-thread-8e37eda1e713d06add4f1989c2f4e248-1796533826232',
      '  policy nsed:fast',
    ]);
  });

  it('breaks a part wider than a row between its words', () => {
    const line = 'reconnecting (attempt 1): the stream ended before the deliberation finished (no [DONE])';
    expect(fitRows(line, printedRowRoom(40), stringWidth)).toEqual([
      'reconnecting (attempt 1): the stream',
      '  ended before the deliberation',
      '  finished (no [DONE])',
    ]);
  });

  it("cuts a word of the line's first part that no row holds with …, as the first part names the line", () => {
    const rows = fitRows(`tool call calc {"expression":"${'9'.repeat(60)}"} · call-1`, printedRowRoom(40), stringWidth);
    expect(rows[0]).toBe('tool call calc');
    expect(rows[1]).toMatch(/^ {2}\{"expression":"9+…$/);
    expect(stringWidth(rows[1] ?? '')).toBe(39);
    expect(rows[2]).toBe('  call-1');
  });

  it('measures as the terminal draws: a CJK character takes two columns', () => {
    const line = `injected at round 2 (#1): ${'数据库迁移 '.repeat(6).trim()}`;
    for (const r of fitRows(line, printedRowRoom(40), stringWidth)) expect(stringWidth(r)).toBeLessThanOrEqual(39);
  });
});

describe('the room of a row', () => {
  it("a live status row leaves the two columns of a Ctrl-C's ^C echo; a printed line only the last", () => {
    expect(ECHO_COLUMNS).toBe('^C'.length);
    expect(liveRowRoom(79)).toBe(77);
    expect(printedRowRoom(79)).toBe(78);
  });
});
