import { describe, expect, it } from 'vitest';
import { parseGateFlags } from '../../src/commands/shared/gate-flags.js';
import { parseGatesFile } from '../../src/input/gates-file.js';
import { NsedError } from '../../src/errors.js';
import { gateSummary, verdictSummary } from '../../src/output/verdict-line.js';
import { deriveVerdict, judgeGates } from '../../src/council/verdict.js';

function usage(fn: () => unknown): NsedError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(NsedError);
    expect((err as NsedError).exitCode).toBe(2);
    return err as NsedError;
  }
  throw new Error('did not throw');
}

describe('gate flags and the --gates file: text to a typed spec, with usage errors that help', () => {
  it('reads each flag; convergence also as a percentage', () => {
    expect(
      parseGateFlags({
        'min-convergence': '80%',
        'max-wrong': '0',
        'max-contested': '2',
        'min-score': '0.6',
        'min-margin': '-0.1',
      }),
    ).toEqual({
      flags: { 'min-convergence': 0.8, 'max-wrong': 0, 'max-contested': 2, 'min-score': 0.6, 'min-margin': -0.1 },
      file: undefined,
    });
  });

  it('refuses what is not a threshold, naming the flag', () => {
    expect(usage(() => parseGateFlags({ 'min-convergence': '1.2' })).message).toBe(
      "--min-convergence must be from 0 to 1 (or 0% to 100%), not '1.2'",
    );
    expect(usage(() => parseGateFlags({ 'max-wrong': '-1' })).message).toMatch(/^--max-wrong must be a whole number/);
    expect(usage(() => parseGateFlags({ 'min-score': '' })).message).toBe("--min-score needs a number, not ''");
    expect(usage(() => parseGateFlags({ 'max-wrong': ['1', '2'] })).message).toBe(
      '--max-wrong is given more than once',
    );
  });

  it('a file holds one object with kebab-case keys; an unknown key is named, a camelCase one corrected', () => {
    expect(parseGatesFile('{"min-convergence": "75%", "max-contested": 1}', 'g.json')).toEqual({
      'min-convergence': 0.75,
      'max-contested': 1,
    });
    const camel = usage(() => parseGatesFile('{"minScore": 0.5}', 'g.json'));
    expect([camel.message, camel.hint]).toEqual([
      "unknown gate 'minScore' in --gates g.json",
      "the key is spelled 'min-score'",
    ]);
    expect(usage(() => parseGatesFile('{"quorum": 3}', 'g.json')).hint).toMatch(/^the gates are: min-convergence, /);
    expect(usage(() => parseGatesFile('[1]', 'g.json')).message).toBe('--gates g.json must hold one JSON object');
    expect(usage(() => parseGatesFile('{', 'g.json')).message).toMatch(/^--gates g.json is not JSON/);
    expect(usage(() => parseGatesFile('{"max-wrong": true}', 'g.json')).message).toBe(
      "gate 'max-wrong' in --gates g.json needs a number",
    );
  });
});

describe('the verdict and gate lines of sessions show and the markdown export', () => {
  it('say what was reported and what was not', () => {
    const bare = deriveVerdict({
      rounds: [
        {
          round: 1,
          total_rounds: 2,
          progress: 0.5,
          scored: true,
          candidates: [
            { agent_id: 'A', score: 0.9, content_preview: '', thought_preview: '', claims: [] },
            { agent_id: 'B', score: 0.5, content_preview: '', thought_preview: '', claims: [] },
          ],
        },
      ],
      reasoning: '',
    });
    expect(verdictSummary(bare)).toBe(
      'verdict · 1/2 rounds · convergence not reported · chosen A 0.9 · margin 0.4 over B · claims not reported',
    );
    expect(gateSummary(judgeGates(bare, { 'min-convergence': 0.5, 'min-score': 0.8 }))).toBe(
      'gate inconclusive · min-convergence not reported (at least 0.5) ? · min-score 0.9 (at least 0.8) ✓',
    );
  });
});
