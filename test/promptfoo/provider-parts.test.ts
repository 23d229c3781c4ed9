// The promptfoo provider's pure parts: its config as `nsed ask` words, and a turn's result as
// promptfoo's response. promptfoo itself runs the provider in test/peers/promptfoo.test.ts.
import { describe, expect, it } from 'vitest';
import { ask } from '../../src/commands/ask.js';
import { GLOBAL_FLAGS } from '../../src/commands/global-options.js';
import { NsedError } from '../../src/errors.js';
import { configWords } from '../../src/promptfoo/config-words.js';
import { providerResponse, tokenUsageOf } from '../../src/promptfoo/response.js';
import type { TurnResult } from '../../src/turn/turn-result.js';
import type { CouncilVerdict } from '../../src/council/verdict.js';

const FLAGS = [...(ask.flags ?? []), ...GLOBAL_FLAGS];

const result = (over: Partial<TurnResult> = {}): TurnResult => ({
  session: '20260101-0123abcd',
  turn: 't2',
  job: 'job-1',
  status: 'complete',
  answer: 'the answer',
  verdict: { rounds: { completed: 2, planned: 2 } } as unknown as CouncilVerdict,
  gate: null,
  usage: { input_tokens: 100, output_tokens: 40, cost_usd: 0.0021, cost_source: 'reported' },
  error: null,
  exitCode: 0,
  ...over,
});

describe('the provider config as nsed ask words', () => {
  it('names each flag by its long name, one word each, so a value that starts with a dash stays a value', () => {
    expect(
      configWords(
        { url: 'http://127.0.0.1:8080', rounds: 3, agents: ['CortexA', 'CortexB'], system: '-be brief' },
        FLAGS,
      ),
    ).toEqual(['--url=http://127.0.0.1:8080', '--rounds=3', '--agents=CortexA,CortexB', '--system=-be brief']);
  });

  it('repeats a repeatable flag, writes false as --no-, and takes relative paths from promptfoo’s config directory', () => {
    expect(configWords({ basePath: '/evals', file: ['a.md', '/abs/b.md'], save: false, home: 'store' }, FLAGS)).toEqual(
      ['--file=/evals/a.md', '--file=/abs/b.md', '--no-save', '--home=/evals/store'],
    );
  });

  it('refuses a token in the config, naming where it is read from instead (reliability #256)', () => {
    expect(() => configWords({ token: 'sk-123' }, FLAGS)).toThrow(/cannot set token: .*NSED_TOKEN/);
    expect(() => configWords({ token: 'sk-123' }, FLAGS)).not.toThrow(/sk-123/);
  });

  it('refuses what the provider owns and keys that are no flag, naming the key', () => {
    expect(() => configWords({ output: 'json' }, FLAGS)).toThrow(/cannot set output/);
    expect(() => configWords({ polcy: 'deep' }, FLAGS)).toThrow(/"polcy", which is no flag of nsed ask/);
    expect(() => configWords({ rounds: { n: 2 } }, FLAGS)).toThrow(/rounds must be a number/);
    expect(() => configWords({ save: 'no' }, FLAGS)).toThrow(/save must be true or false/);
    expect(() => configWords(['policy'], FLAGS)).toThrow(/a mapping of nsed ask flags/);
  });
});

describe('a turn’s result as promptfoo’s response', () => {
  it('gives the answer, the tokens with their total, the cost, and the verdict, session and job as metadata', () => {
    const r = providerResponse(result(), undefined);
    expect(r).toMatchObject({
      output: 'the answer',
      tokenUsage: { prompt: 100, completion: 40, total: 140 },
      cost: 0.0021,
      metadata: { session: '20260101-0123abcd', job_id: 'job-1', cost_source: 'reported', exit_code: 0 },
    });
    expect(r.error).toBeUndefined();
  });

  it('leaves unknown figures out, never 0, and a total of one known figure too (reliability #255)', () => {
    const unknown = providerResponse(
      result({ usage: { input_tokens: null, output_tokens: null, cost_usd: null, cost_source: 'unknown' } }),
      undefined,
    );
    expect(unknown.tokenUsage).toBeUndefined();
    expect('cost' in unknown).toBe(false);
    expect(unknown.metadata?.['cost_source']).toBe('unknown');
    expect(tokenUsageOf({ input_tokens: 10, output_tokens: null, cost_usd: null, cost_source: 'unknown' })).toEqual({
      prompt: 10,
    });
    expect(providerResponse(result({ usage: null }), undefined).metadata?.['cost_source']).toBe('unknown');
  });

  it('keeps a completed turn that failed its gate an answer, saying why nsed would exit 12', () => {
    const gated = providerResponse(
      result({ error: { code: 'gate', exit_code: 12, message: 'gate failed: min-convergence' }, exitCode: 12 }),
      undefined,
    );
    expect(gated.error).toBeUndefined();
    expect(gated.output).toBe('the answer');
    expect(gated.metadata).toMatchObject({ exit_code: 12, error: { code: 'gate' } });
  });

  it('makes a turn that did not complete promptfoo’s error, with what it cost', () => {
    const failed = providerResponse(
      result({ status: 'failed', error: { code: 'server', exit_code: 5, message: 'the job failed' }, exitCode: 5 }),
      undefined,
    );
    expect(failed.error).toBe('nsed: the job failed');
    expect(failed.cost).toBe(0.0021);
  });

  it('says why when the turn never began, with nsed’s hint', () => {
    const r = providerResponse(
      undefined,
      new NsedError('usage', 'no such policy', { hint: 'nsed policies lists them' }),
    );
    expect(r).toEqual({ error: 'nsed: no such policy (hint: nsed policies lists them)' });
  });
});
