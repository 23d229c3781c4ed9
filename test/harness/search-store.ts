// A fixed store for the search index's tests: six sessions whose questions, answers, claims,
// gates, costs and trajectories differ in the ways search, stats and ls tell apart.
import type { Session, Turn } from '../../src/session/model.js';
import type { CouncilVerdict, GateStatus } from '../../src/council/verdict.js';
import { session, turn } from './temp-store.js';

interface Answer {
  content: string;
  claims?: Partial<Record<'verified' | 'contested' | 'unverified' | 'wrong' | 'unknown', string[]>>;
  convergence?: number;
  leadChanges?: number[];
  settled?: number;
  gate?: GateStatus;
  /** Dollars, or null for an answer whose cost no server reported. */
  cost?: number | null;
  tokens?: [number, number];
}

/** A recorded answer carrying only what the index reads of a verdict (the rest of its shape is not looked at). */
export function answer(id: string, a: Answer): Turn {
  const claims =
    a.claims === undefined
      ? null
      : {
          chosen: Object.fromEntries(
            Object.entries(a.claims).map(([v, list]) => [v, list.map((claim) => ({ claim, reason: null }))]),
          ),
        };
  const verdict = {
    convergence: { final: a.convergence ?? null },
    claims,
    trajectory:
      a.leadChanges === undefined
        ? null
        : { leaders: [], lead_changes: a.leadChanges, settled_round: a.settled ?? null, dropped_claims: [] },
  } as unknown as CouncilVerdict;
  const cost = a.cost === undefined ? null : a.cost;
  return turn(id, {
    role: 'assistant',
    content: a.content,
    verdict,
    usage: {
      input_tokens: a.tokens?.[0] ?? null,
      output_tokens: a.tokens?.[1] ?? null,
      cost_usd: cost,
      cost_source: cost === null ? 'unknown' : 'reported',
    },
    ...(a.gate === undefined ? {} : { gate: { status: a.gate, checks: [] } }),
  });
}

const at = (day: number): string => `2026-03-${String(day).padStart(2, '0')}T10:00:00.000Z`;

/** The fixed store, oldest first. */
export function searchSessions(): Session[] {
  return [
    session('s1', {
      title: 'retry policy',
      created: at(1),
      updated: at(1),
      turns: [
        turn('q1', { content: 'How should the client retry a failed upload?' }),
        answer('a1', {
          content: 'Retry with exponential backoff and a budget.',
          claims: { verified: ['Backoff avoids thundering herds'], wrong: ['Retries never duplicate work'] },
          convergence: 0.9,
          leadChanges: [],
          settled: 2,
          gate: 'pass',
          cost: 0.25,
          tokens: [1000, 200],
        }),
      ],
    }),
    session('s2', {
      title: 'café cache',
      created: at(2),
      updated: at(2),
      active_policy: 'nsed:fast',
      turns: [
        turn('q2', { content: 'Which CACHE for the Café menu service?' }),
        answer('a2', {
          content: 'A write-through cache; retry the origin on a miss.',
          claims: { contested: ['Write-through doubles the latency'] },
          convergence: 0.6,
          leadChanges: [2, 3],
          settled: 3,
          gate: 'fail',
          cost: null,
          tokens: [500, 100],
        }),
      ],
    }),
    session('s3', {
      title: 'catalog',
      created: at(3),
      updated: at(3),
      batch: { id: 'batch-aa', item: 'one', request_hash: 'h' },
      turns: [
        turn('q3', { content: 'Design the catalog schema' }),
        answer('a3', {
          content: 'Normalise the catalog; budget for joins.',
          gate: 'inconclusive',
          cost: 0.5,
          tokens: [800, 300],
        }),
      ],
    }),
    session('s4', {
      title: 'no answer yet',
      created: at(3),
      updated: at(3),
      batch: { id: 'batch-aa', item: 'two', request_hash: 'h' },
      turns: [turn('q4', { content: 'retry budget for the catalog?' })],
    }),
    session('s5', {
      title: 'retry again',
      created: at(4),
      updated: at(4),
      turns: [
        turn('q5', { content: 'Does retry need jitter?' }),
        answer('a5', { content: 'Yes.', convergence: 1, leadChanges: [2], settled: 1, cost: 0.125, tokens: [10, 20] }),
      ],
    }),
    session('s6', {
      title: 'archived retry',
      created: at(5),
      updated: at(5),
      archived: '2026-03-06T00:00:00.000Z',
      turns: [turn('q6', { content: 'retry archived question' })],
    }),
  ];
}
