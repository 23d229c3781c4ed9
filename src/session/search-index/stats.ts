import { cents } from '../../council/usage.js';
import type { IndexEntry } from './query.js';

/** How `sessions stats` groups the sessions: by the day they were created (UTC), their policy, their batch, or all together. */
export const STATS_GROUPS = ['day', 'policy', 'batch'] as const;
export type StatsGroup = (typeof STATS_GROUPS)[number];

/** The figures of one group of sessions. Unknown is null, never 0; the answers of unknown cost are counted apart. */
export interface StatsRow {
  /** The day (YYYY-MM-DD), policy or batch id; null for sessions without one (a council of --agents, no batch), or for the whole. */
  key: string | null;
  sessions: number;
  /** Turns of the transcripts: questions, answers and injections. */
  turns: number;
  /** Answers (the turns whose usage counts). */
  answers: number;
  /** Tokens in and out, summed over the answers that reported them; null when none did. */
  input_tokens: number | null;
  output_tokens: number | null;
  /** Dollars summed over the answers whose cost is known; null when none is. */
  cost_usd: number | null;
  /** Answers whose cost is unknown: in no sum. */
  unknown_cost_answers: number;
  /** Sessions by the outcome of their last gated answer; `none`: no gate judged them. */
  gates: { pass: number; fail: number; inconclusive: number; none: number };
  /** The mean final convergence of the sessions that report one, and how many do. */
  convergence: { mean: number | null; sessions: number };
  /** Of the sessions whose rounds name a leader per round, how many saw the debate change the leader, and the share. */
  leader_changed: { sessions: number; changed: number; share: number | null };
}

const round4 = (n: number): number => Math.round(n * 1e4) / 1e4;

function keyOf(e: IndexEntry, by: StatsGroup | undefined): string | null {
  switch (by) {
    case 'day':
      return e.created.slice(0, 10);
    case 'policy':
      return e.policy;
    case 'batch':
      return e.batch ?? null;
    default:
      return null;
  }
}

/** The figures of `entries`, one row per group in key order (the sessions without a key last), or one row for all. */
export function statsOf(entries: readonly IndexEntry[], by: StatsGroup | undefined): StatsRow[] {
  const groups = new Map<string | null, IndexEntry[]>();
  for (const e of entries) {
    const key = keyOf(e, by);
    const list = groups.get(key);
    if (list === undefined) groups.set(key, [e]);
    else list.push(e);
  }
  if (by === undefined && groups.size === 0) groups.set(null, []);
  const keys = [...groups.keys()].sort((a, b) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1));
  return keys.map((key) => rowOf(key, groups.get(key) ?? []));
}

function rowOf(key: string | null, list: readonly IndexEntry[]): StatsRow {
  const sum = (of: (e: IndexEntry) => number | null): number | null => {
    const xs = list.map(of).filter((n): n is number => n !== null);
    return xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0);
  };
  const cost = sum((e) => e.usage.cost_usd);
  const converged = list.map((e) => e.convergence).filter((c): c is number => c !== null);
  const traced = list.filter((e) => e.lead_changes !== null);
  const changed = traced.filter((e) => (e.lead_changes ?? 0) > 0).length;
  const gates = { pass: 0, fail: 0, inconclusive: 0, none: 0 };
  for (const e of list) gates[e.gate ?? 'none']++;
  return {
    key,
    sessions: list.length,
    turns: list.reduce((a, e) => a + e.turns, 0),
    answers: list.reduce((a, e) => a + e.usage.turns, 0),
    input_tokens: sum((e) => e.usage.input_tokens),
    output_tokens: sum((e) => e.usage.output_tokens),
    cost_usd: cost === null ? null : cents(cost),
    unknown_cost_answers: list.reduce((a, e) => a + e.usage.unknown_cost_turns, 0),
    gates,
    convergence: {
      mean: converged.length === 0 ? null : round4(converged.reduce((a, b) => a + b, 0) / converged.length),
      sessions: converged.length,
    },
    leader_changed: {
      sessions: traced.length,
      changed,
      share: traced.length === 0 ? null : round4(changed / traced.length),
    },
  };
}
