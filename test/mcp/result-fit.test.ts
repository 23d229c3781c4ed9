// The 20,000-token bound of one tool result, on results built as the turn tools build theirs: the
// answer in the text and again in the structured content.
import { describe, expect, it } from 'vitest';
import { cutNote, fitAnswer, headOf, RESULT_TOKENS_MAX, tokensOf, type Cut } from '../../src/mcp/result-fit.js';

const REST = 'nsed://sessions/20261206-ab12/answer';

/** A turn result's shape: the answer and a verdict line as text, the answer and its facts as structure. */
const build = (answer: string | null, cut: Cut | null) => ({
  text: `${answer ?? ''}${cut === null ? '' : `\n\n${cutNote(cut)}`}\n\n— session 20261206-ab12 · chosen CortexA`,
  structured: { session: '20261206-ab12', content: answer, ...(cut === null ? {} : { cut }) },
});
const size = (r: { text: string; structured: Record<string, unknown> }): number =>
  tokensOf(r.text) + tokensOf(JSON.stringify(r.structured));

describe('a result within 20,000 tokens', () => {
  it('leaves an answer that fits whole, and one that is null', () => {
    const answer = 'Keep it simple.\n'.repeat(1000);
    expect(fitAnswer(answer, build, REST)).toEqual({ ...build(answer, null), cut: null });
    expect(fitAnswer(null, build, REST).cut).toBeNull();
  });

  it('cuts a longer answer to fit, at a line break, saying how much of it is shown and where the rest is', () => {
    const answer = Array.from({ length: 4000 }, (_, i) => `line ${i}: the council kept this detail.`).join('\n');
    expect(size(build(answer, null))).toBeGreaterThan(RESULT_TOKENS_MAX);
    const fitted = fitAnswer(answer, build, REST);
    expect(size(fitted)).toBeLessThanOrEqual(RESULT_TOKENS_MAX);
    const head = String(fitted.structured['content']);
    expect(answer.startsWith(`${head}\n`)).toBe(true);
    expect(fitted.cut).toEqual({ answer_tokens: tokensOf(answer), shown_tokens: tokensOf(head), rest: REST });
    // Most of what fits is kept: the cut is not far below the bound.
    expect(size(fitted)).toBeGreaterThan(RESULT_TOKENS_MAX * 0.9);
    expect(fitted.text).toContain(`${head}\n\n[cut: the answer is about ${tokensOf(answer)} tokens`);
  });

  it('never splits a character: the head of a text of multibyte characters is whole characters', () => {
    const answer = 'é🙂'.repeat(50_000);
    const head = headOf(answer, 1001);
    expect(head).not.toContain('\uFFFD');
    expect(answer.startsWith(head)).toBe(true);
    expect(Buffer.byteLength(head, 'utf8')).toBeLessThanOrEqual(1001 * 4);
    const fitted = fitAnswer(answer, build, REST);
    expect(size(fitted)).toBeLessThanOrEqual(RESULT_TOKENS_MAX);
    expect(answer.startsWith(String(fitted.structured['content']))).toBe(true);
  });
});
