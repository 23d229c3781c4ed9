import { describe, expect, it } from 'vitest';
import { deriveVerdict, judgeGates } from '../../src/council/verdict.js';
import { gateEntry } from '../../src/input/gates-file.js';
import { fencedBlocks, manualFiles, readManual } from './manual.js';

/**
 * The manual's CI examples (README.md and docs/) gate on endorsement beside convergence: convergence alone passed a
 * council at 89 % whose real evaluators endorsed the answer 0 times of 2.
 */

/** The fenced blocks of every page of the manual, with their language. */
function blocks(): Array<{ lang: string; text: string }> {
  return manualFiles()
    .flatMap((f) => fencedBlocks(readManual(f)))
    .map((b) => ({ lang: b.lang, text: b.lines.join('\n') }));
}

describe("the manual's CI examples", () => {
  it('every CI job (GitHub workflow, GitLab job) that gates on convergence also gates on endorsement', () => {
    const jobs = blocks().filter((b) => b.lang === 'yaml' && /min-convergence/.test(b.text));
    expect(jobs.length).toBeGreaterThanOrEqual(3);
    for (const job of jobs) expect(job.text, job.text.slice(0, 200)).toMatch(/min-endorse:? /);
  });

  it('and for good reason: 89 % convergence with 0 of 2 real endorsements passes --min-convergence 0.8 alone', () => {
    const verdict = deriveVerdict({
      rounds: [],
      reasoning: 'Round 1 complete — convergence: 89%',
      details: {
        // Two real evaluators scored the chosen proposal, and neither agreed with it.
        entries: [
          {
            round: 1,
            author: 'A',
            score: 0.9,
            content: '',
            usage: null,
            evaluations: ['B', 'C'].map((evaluator) => ({
              evaluator,
              usage: null,
              score: 0.9,
              stance: 'disagree' as const,
              synthetic: false,
              justification: null,
              claims: [],
              disagreements: [],
            })),
          },
        ],
        rounds: [],
        finalAuthor: 'A',
        finalScore: 0.9,
        totalRounds: 1,
      },
      finalized: { chosen_agent_id: 'A', round: 1 },
    });
    expect(verdict.convergence.final).toBe(0.89);
    expect(verdict.trust.endorse).toEqual({ count: 0, of: 2 });
    expect(judgeGates(verdict, { 'min-convergence': 0.8 }).status).toBe('pass');
    const [name, value] = gateEntry('min-endorse', '50%', '--min-endorse');
    expect(judgeGates(verdict, { 'min-convergence': 0.8, [name]: value }).status).toBe('fail');
  });
});
