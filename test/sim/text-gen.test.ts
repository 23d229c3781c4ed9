import { describe, expect, it } from 'vitest';
import { chunkText, composeAnswer } from '../../src/sim/answer.js';
import { type CouncilInput, evaluate, mergeClaims, propose } from '../../src/sim/council.js';
import { membersOf } from '../../src/sim/start-job.js';
import { phrasesOf, textContext, titleOf, topicOf } from '../../src/sim/text-context.js';

function runCouncil(
  question: string,
  key: string,
  agents = ['CortexA', 'CortexB', 'CortexC'],
  rounds = 3,
  guidance: string[] = [],
) {
  const input: CouncilInput = { key, text: textContext(question, ''), members: membersOf(agents), totalRounds: rounds };
  const influences = { guidance, toolResults: [] };
  let previous;
  for (let r = 1; r <= rounds; r++) previous = evaluate(input, r, propose(input, r, influences, previous));
  if (!previous) throw new Error('no rounds');
  return {
    input,
    final: previous,
    answer: composeAnswer({
      text: input.text,
      members: input.members,
      final: previous,
      totalRounds: rounds,
      influences,
    }),
  };
}

describe('claim merging', () => {
  it('lets the worst verdict win across evaluators, with unknown between unverified and verified', () => {
    const merged = mergeClaims([
      { claim: 'a', verdict: 'verified' },
      { claim: 'a', verdict: 'contested', reason: 'c' },
      { claim: 'a', verdict: 'unverified' },
      { claim: 'b', verdict: 'verified' },
      { claim: 'b', verdict: 'unknown', reason: 'u' },
      { claim: 'c', verdict: 'unknown' },
      { claim: 'c', verdict: 'unverified', reason: 'v' },
      { claim: 'd', verdict: 'contested' },
      { claim: 'd', verdict: 'wrong', reason: 'w' },
    ]);
    expect(merged).toEqual([
      { claim: 'd', verdict: 'wrong', reason: 'w' },
      { claim: 'a', verdict: 'contested', reason: 'c' },
      { claim: 'c', verdict: 'unverified', reason: 'v' },
      { claim: 'b', verdict: 'unknown', reason: 'u' },
    ]);
  });

  it('keeps at most 8 claims, the most severe first', () => {
    const many = Array.from({ length: 12 }, (_, i) => ({
      claim: `c${i}`,
      verdict: i === 11 ? ('wrong' as const) : ('verified' as const),
    }));
    const merged = mergeClaims(many);
    expect(merged).toHaveLength(8);
    expect(merged[0]?.claim).toBe('c11');
  });

  it('caps the candidates of a large council at 8 claims each', () => {
    const { final } = runCouncil(
      'Plan a database migration',
      'k',
      ['CortexA', 'CortexB', 'CortexC', 'CortexD', 'CortexE', 'CortexF', 'X1', 'X2'],
      2,
    );
    for (const c of final.candidates) expect(c.claims.length).toBeLessThanOrEqual(8);
    expect(Math.max(...final.candidates.map((c) => c.claims.length))).toBeGreaterThan(3);
  });
});

describe('a council that sometimes raises more claims than the cap', () => {
  it('gathers up to 10 distinct claims per candidate on the default council, and the cap of 8 keeps the worst', () => {
    let over = 0;
    let most = 0;
    for (let k = 0; k < 60; k++) {
      const { final } = runCouncil('Plan a database migration with zero downtime', `seed-${k}`, undefined, 2);
      for (const c of final.candidates) {
        const raw = mergeClaims(
          final.evaluations.filter((e) => e.target_id === c.agent_id).flatMap((e) => e.claim_assessments),
          Infinity,
        );
        most = Math.max(most, raw.length);
        expect(raw.length).toBeLessThanOrEqual(10);
        expect(c.claims.length).toBeLessThanOrEqual(8);
        if (raw.length > 8) {
          over += 1;
          // Worst verdict wins: what the cap cut is never worse than what it kept.
          expect(c.claims).toEqual(raw.slice(0, 8));
        }
      }
    }
    expect(most).toBeGreaterThan(8);
    expect(over).toBeGreaterThan(0);
  });
});

describe('chunking the answer', () => {
  it('splits at word boundaries into 40-80 character pieces that concatenate back exactly', () => {
    const { answer } = runCouncil('Design a distributed cache', 'k');
    const pieces = chunkText(answer);
    expect(pieces.join('')).toBe(answer);
    expect(pieces.length).toBeGreaterThan(5);
    for (const p of pieces.slice(0, -1)) {
      expect(p.length).toBeGreaterThanOrEqual(40);
      expect(p.length).toBeLessThanOrEqual(80);
      expect(p).toMatch(/\s$/);
    }
  });

  it('keeps a single word longer than the maximum whole', () => {
    const long = 'x'.repeat(120);
    expect(chunkText(`short ${long} tail`)).toEqual([`short ${long} `, 'tail']);
  });
});

describe('simulated text', () => {
  it('picks the topic phrase from the question', () => {
    expect(topicOf('Design a distributed cache')).toBe('distributed cache');
    expect(topicOf('Compare Postgres and SQLite for a desktop app')).toBe('desktop app');
    expect(phrasesOf('Compare Postgres and SQLite for a desktop app')).toEqual(['Postgres', 'SQLite', 'desktop app']);
    expect(topicOf('?')).toBe('this question');
    expect(titleOf('what is rust?')).toBe('What is rust?');
    expect(titleOf(`${'word '.repeat(30)}`).length).toBeLessThanOrEqual(61);
  });

  it.each([
    'Design a distributed cache',
    'What is 2 + 2?',
    'How should I store sessions for a CLI tool in Node?',
    'yo what about forests?',
    'Compare Postgres and SQLite for a desktop app that syncs over flaky networks and must never lose a write',
  ])('answers %j with a markdown document of 600-1500 characters built from the question', (question) => {
    const { answer, input } = runCouncil(question, 'seed-1');
    expect(answer.startsWith('## ')).toBe(true);
    expect(answer.length).toBeGreaterThanOrEqual(600);
    expect(answer.length).toBeLessThanOrEqual(1500);
    expect(answer).toContain(input.text.topic);
    expect(answer).toMatch(/\n- \*\*/);
    expect(answer).not.toMatch(/lorem/i);
  });

  it('gives each agent a different angle on the same question', () => {
    const { final } = runCouncil('Design a distributed cache', 'k', ['CortexA', 'CortexB', 'CortexC'], 1);
    const [a, b, c] = final.proposals.map((p) => p.content);
    expect(new Set([a, b, c]).size).toBe(3);
    expect(a).toMatch(/simple|boring|direct/i);
    expect(b).toMatch(/hot path|latency|throughput/i);
    expect(c).toMatch(/fail|bad data|failure/i);
  });

  it('is deterministic for one key and varies with another', () => {
    expect(runCouncil('Design a distributed cache', 'one').answer).toBe(
      runCouncil('Design a distributed cache', 'one').answer,
    );
    const x = runCouncil('Design a distributed cache', 'one').final;
    const y = runCouncil('Design a distributed cache', 'two').final;
    expect(x.proposals.map((p) => p.content)).not.toEqual(y.proposals.map((p) => p.content));
  });

  it('quotes injected guidance in later proposals and the answer', () => {
    const { answer, final } = runCouncil('Design a distributed cache', 'k', undefined, 2, [
      'Focus on memory safety over throughput',
    ]);
    expect(answer).toContain('Focus on memory safety over throughput');
    expect(final.proposals[0]?.content).toContain('Focus on memory safety over throughput');
  });
});
