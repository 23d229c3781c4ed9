import { describe, expect, it } from 'vitest';
import { batchPrompts, checkBatchLines, checkPromptfooOutput } from '../../bench/lib/batch-check.mjs';

// The batch figures time a client only when it did the whole work (bench/figures/batch.mjs):
// these checks are what keeps a run that lost or failed items from becoming a figure.
const line = (id: string, status = 'ok'): string => JSON.stringify({ id, status, answer: 'a' });

describe('the batch figures accept a run only when every item was answered once', () => {
  it('counts the result lines of a whole batch, blank lines aside', () => {
    expect(checkBatchLines(`${line('line-1')}\n${line('line-2')}\n\n`, 2)).toBe(2);
  });

  it('refuses a batch that wrote fewer lines than items', () => {
    expect(() => checkBatchLines(`${line('line-1')}\n`, 2)).toThrow('1 result lines for 2 items');
  });

  it('refuses an item written twice', () => {
    expect(() => checkBatchLines(`${line('line-1')}\n${line('line-1')}\n`, 2)).toThrow('line-1 twice');
  });

  it('refuses items that did not end ok, counted per status', () => {
    const out = [line('a', 'error'), line('b', 'error'), line('c', 'failed'), line('d')].join('\n');
    expect(() => checkBatchLines(out, 4)).toThrow('2 error, 1 failed');
  });

  it("takes promptfoo's output only with every test a success", () => {
    const out = (successes: number, failures: number, errors: number): string =>
      JSON.stringify({ results: { stats: { successes, failures, errors } } });
    expect(checkPromptfooOutput(out(3, 0, 0), 3)).toBe(3);
    expect(() => checkPromptfooOutput(out(2, 0, 1), 3)).toThrow('2 successes, 0 failures, 1 errors of 3');
    expect(() => checkPromptfooOutput(out(3, 0, 0), 4)).toThrow('of 4 tests');
    expect(() => checkPromptfooOutput('{}', 1)).toThrow('no results.stats');
  });

  it('gives each item its own one-line prompt', () => {
    const prompts = batchPrompts(50);
    expect(new Set(prompts).size).toBe(50);
    expect(prompts.every((p) => !p.includes('\n'))).toBe(true);
  });
});
