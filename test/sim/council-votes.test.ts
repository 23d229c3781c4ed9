import { describe, expect, it } from 'vitest';
import type { SimOptions } from '../../src/sim/server.js';
import { getJson, sim } from '../harness/sse.js';
import { runHeldNative } from './native-events.js';

const STANCES = ['strong_disagree', 'disagree', 'neutral', 'agree', 'strong_agree'];

interface Ballot {
  evaluator_agent_id: string;
  evaluation: {
    score: number;
    stance: string;
    synthetic: boolean;
    claim_assessments: Array<{ claim: string; verdict: string }>;
    disagreements: Array<{ proposal_claims: string[]; evaluator_position: string; confidence: string }>;
  };
}
interface Entry {
  round: number;
  author_agent_id: string;
  evaluations: Ballot[];
  aggregated_score: number;
}
interface Summary {
  round: number;
  decisiveness: number;
  proposal_scores: Array<{
    agent_id: string;
    aggregated_score: number;
    controversy_score: number;
    real_eval_count: number;
    synthetic_eval_count: number;
  }>;
  claim_convergence: number | null;
  total_claims: number;
  leader_claim_convergence: number | null;
  leader_total_claims: number;
}
interface Details {
  history: Entry[];
  final_result: Entry;
  rounds: Array<Summary & { leader: string }>;
}

const COUNCIL = ['CortexA', 'CortexB', 'CortexC'];

/** A three-agent, two-round native deliberation run to its end: its events and /details. */
async function council(opts: SimOptions = {}, headers: Record<string, string> = {}) {
  const s = await sim({ hold: true, ...opts });
  const events = await runHeldNative(
    s,
    { room_id: 'room-c', user_query: 'Design a cache', agent_names: COUNCIL, deliberation_rounds: 2 },
    headers,
  );
  const details = (await getJson(`${s.url}/deliberation/room-c/details`)).body as Details;
  return { s, events, details };
}

const round2 = (n: number): number => Math.round(n * 100) / 100;
const stdev = (xs: number[]): number => {
  if (xs.length < 2) return 0;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length);
};

describe('the simulator votes like a council', () => {
  it('every evaluation has a stance that rises with its score, for each evaluator in each round', async () => {
    for (const seed of [0, 1, 2, 3]) {
      const { details } = await council({ seed });
      const ballots = details.history.flatMap((h) => h.evaluations);
      expect(ballots.length).toBe(2 * 3 * 2);
      for (const b of ballots) expect(STANCES).toContain(b.evaluation.stance);
      // Strong agreement only with a high score, agreement never with a low one.
      for (const b of ballots) {
        if (b.evaluation.stance === 'strong_agree') expect(b.evaluation.score).toBeGreaterThanOrEqual(0.7);
        if (b.evaluation.stance === 'agree') expect(b.evaluation.score).toBeGreaterThanOrEqual(0.45);
      }
      for (const [evaluator, round] of COUNCIL.flatMap((e) => [1, 2].map((r) => [e, r] as const))) {
        const mine = details.history
          .filter((h) => h.round === round)
          .flatMap((h) => h.evaluations)
          .filter((b) => b.evaluator_agent_id === evaluator);
        for (const x of mine)
          for (const y of mine)
            if (x.evaluation.score > y.evaluation.score)
              expect(STANCES.indexOf(x.evaluation.stance)).toBeGreaterThanOrEqual(STANCES.indexOf(y.evaluation.stance));
      }
    }
  });

  it('some evaluators disagree with the chosen proposal, and say where, how sure, and why', async () => {
    const dissent: Ballot[] = [];
    for (const seed of [0, 1, 2, 3, 4, 5]) {
      const { details } = await council({ seed });
      const final = details.final_result;
      dissent.push(...final.evaluations.filter((b) => ['disagree', 'strong_disagree'].includes(b.evaluation.stance)));
    }
    expect(dissent.length).toBeGreaterThan(0);
    for (const b of dissent) {
      expect(b.evaluation.disagreements.length).toBeGreaterThan(0);
      for (const d of b.evaluation.disagreements) {
        expect(d.proposal_claims.length).toBeGreaterThan(0);
        expect(d.evaluator_position).not.toBe('');
        expect(['high', 'medium', 'low']).toContain(d.confidence);
      }
    }
  });

  it('round_summary: decisiveness, controversy and claim convergence follow from the ballots, in the events and /details', async () => {
    const { events, details } = await council({ seed: 2 });
    const summaries = events.filter((e) => e.event === 'round_summary').map((e) => e.data as Summary);
    expect(summaries).toHaveLength(2);
    for (const summary of summaries) {
      const entries = details.history.filter((h) => h.round === summary.round);
      const ranked = summary.proposal_scores.map((p) => p.aggregated_score).sort((a, b) => b - a);
      expect(summary.decisiveness).toBe(round2((ranked[0] ?? 0) - (ranked[1] ?? 0)));
      for (const p of summary.proposal_scores) {
        const scores = (entries.find((h) => h.author_agent_id === p.agent_id)?.evaluations ?? []).map(
          (b) => b.evaluation.score,
        );
        expect(p.controversy_score).toBe(round2(stdev(scores)));
        expect(p).toMatchObject({ real_eval_count: 2, synthetic_eval_count: 0 });
      }
      // Claim convergence: the share of distinct claims whose worst verdict is verified.
      const worst = new Map<string, string>();
      const rank = ['verified', 'unknown', 'unverified', 'contested', 'wrong'];
      for (const b of entries.flatMap((h) => h.evaluations))
        for (const c of b.evaluation.claim_assessments) {
          const seen = worst.get(c.claim);
          if (seen === undefined || rank.indexOf(c.verdict) > rank.indexOf(seen)) worst.set(c.claim, c.verdict);
        }
      expect(summary.total_claims).toBe(worst.size);
      const verified = [...worst.values()].filter((v) => v === 'verified').length;
      expect(summary.claim_convergence).toBe(round2(verified / worst.size));
      expect(details.rounds.find((r) => r.round === summary.round)).toMatchObject(summary);
    }
  });

  it('evaluator-timeout=AGENT: its evaluations are synthetic stand-ins, counted apart and moving no score', async () => {
    const { events, details } = await council({ seed: 1 }, { 'x-nsed-sim-fault': 'evaluator-timeout=CortexB' });
    const byB = details.history.flatMap((h) => h.evaluations).filter((b) => b.evaluator_agent_id === 'CortexB');
    expect(byB).toHaveLength(2 * 2);
    for (const b of byB)
      expect(b.evaluation).toMatchObject({
        synthetic: true,
        stance: 'neutral',
        claim_assessments: [],
        disagreements: [],
      });
    const others = details.history.flatMap((h) => h.evaluations).filter((b) => b.evaluator_agent_id !== 'CortexB');
    expect(others.every((b) => !b.evaluation.synthetic)).toBe(true);
    for (const h of details.history) {
      const real = h.evaluations.filter((b) => !b.evaluation.synthetic).map((b) => b.evaluation.score);
      expect(h.aggregated_score).toBe(round2(real.reduce((a, x) => a + x, 0) / real.length));
    }
    const summary = events.find((e) => e.event === 'round_summary')?.data as Summary;
    for (const p of summary.proposal_scores)
      expect(p).toMatchObject(
        p.agent_id === 'CortexB'
          ? { real_eval_count: 2, synthetic_eval_count: 0 }
          : { real_eval_count: 1, synthetic_eval_count: 1 },
      );
    const submitted = events
      .filter((e) => e.event === 'evaluation_submitted')
      .map((e) => e.data as { evaluator_id: string });
    expect(submitted.some((e) => e.evaluator_id === 'CortexB')).toBe(false);
    expect(events.find((e) => e.event === 'budget_phase_complete')?.data).toMatchObject({
      phase: 'evaluate',
      under_budget: false,
    });
  });

  it('is deterministic per seed', async () => {
    const a = await council({ seed: 9 });
    const b = await council({ seed: 9 });
    expect(b.details.history).toEqual(a.details.history);
  });
});

describe('model families', () => {
  const families = (agents: Array<Record<string, unknown>>, ids: string[], key: string): Set<unknown> =>
    new Set(agents.filter((a) => ids.includes(String(a.agent_id))).map((a) => a[key]));

  it('the default council spans at least two model families and providers', async () => {
    const s = await sim();
    const agents = (await getJson(`${s.url}/agents`)).body as Array<Record<string, unknown>>;
    expect(families(agents, COUNCIL, 'model_family').size).toBeGreaterThanOrEqual(2);
    expect(families(agents, COUNCIL, 'provider_id').size).toBeGreaterThanOrEqual(2);
    for (const a of agents) expect(String(a.model_name).startsWith(`${String(a.model_family)}-`)).toBe(true);
  });

  it('singleFamily (nsed sim --single-family): every agent is one family from one provider', async () => {
    const s = await sim({ singleFamily: true });
    const agents = (await getJson(`${s.url}/agents`)).body as Array<Record<string, unknown>>;
    const ids = agents.map((a) => String(a.agent_id));
    expect(families(agents, ids, 'model_family')).toEqual(new Set(['simlm']));
    expect(families(agents, ids, 'provider_id')).toEqual(new Set(['sim-labs']));
  });
});
