import type { Spent } from '../council/spend-cap.js';
import { cents, type CostSource, type Prices, type Usage } from '../council/usage.js';

/**
 * What a running deliberation has spent, judged from what the server says of it (its stream's
 * usage, `GET /deliberation/{id}/budget`) for a spend cap (spend-watch.ts). The server is
 * untrusted: a figure that is not a whole, non-negative number, tokens of 0 after a round ran, or
 * $0 for tokens that `/agents` prices, is no meter reading. Then dollars fall back, in this order,
 * to the tokens priced at the highest listed prices, and to the rounds run so far at the
 * estimate's cost of a round (docs/reliability.md #235); tokens have no fallback (nothing
 * estimates them), so a token cap then cannot act. Pure: the watch reads, this judges.
 */
export interface MeterJudgement {
  spent: Spent;
  /** The same figures as a usage (what a stop at the cap records). */
  usage: Usage;
  /** Where the dollars came from; null when nothing gives them. */
  costFrom: 'meter' | 'tokens' | 'estimate' | null;
  /** Why the server's own figures were not believed, in words for stderr; null when they were. */
  doubt: string | null;
}

export interface MeterInput {
  /** `/budget`'s answer; `late` when it did not answer within its bound, `failed` when it could not be read. */
  budget: unknown;
  read: 'answered' | 'late' | 'failed' | 'skipped';
  /** How long a read may take before it is late, for the words. */
  boundMs: number;
  /** The usage the stream reported so far, or null. */
  reported: Usage | null;
  ceiling: Prices | null;
  roundUsd: number | null;
  /** Scored rounds seen so far. */
  rounds: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const sound = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const shown = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v.slice(0, 20)) : String(v));

/** The `/budget` keys a cap reads, and what each is in words. */
const BUDGET_KEYS = ['total_input_tokens', 'total_output_tokens', 'estimated_cost_usd'] as const;

export function judgeMeter(m: MeterInput): MeterJudgement {
  const doubts: string[] = [];
  const b = isRecord(m.budget) && isRecord(m.budget['budget']) ? m.budget['budget'] : null;
  if (m.read === 'late') doubts.push(`GET /deliberation/{id}/budget did not answer within ${m.boundMs / 1000} s`);
  else if (m.read === 'failed')
    doubts.push('GET /deliberation/{id}/budget reports no live usage (it could not be read)');
  else if (m.read === 'answered' && (b === null || BUDGET_KEYS.every((k) => b[k] === undefined || b[k] === null)))
    doubts.push('GET /deliberation/{id}/budget reports no live usage');
  const figure: Record<(typeof BUDGET_KEYS)[number], number | null> = {
    total_input_tokens: null,
    total_output_tokens: null,
    estimated_cost_usd: null,
  };
  for (const k of BUDGET_KEYS) {
    const v = b?.[k];
    if (v === undefined || v === null) continue;
    if (sound(v)) figure[k] = v;
    else doubts.push(`GET /deliberation/{id}/budget reports ${k} ${shown(v)}`);
  }
  const r = m.reported;
  // The stream's own totals first (they come with the job's end), then `/budget`'s.
  let input = r?.input_tokens ?? figure.total_input_tokens;
  let output = r?.output_tokens ?? figure.total_output_tokens;
  // A round ran and used nothing: the meter is not counting.
  if (m.rounds >= 1 && input !== null && output !== null && input + output === 0) {
    doubts.push(`the orchestrator reports 0 tokens after ${m.rounds} round${m.rounds === 1 ? '' : 's'}`);
    input = null;
    output = null;
  }
  const tokens = input === null && output === null ? null : (input ?? 0) + (output ?? 0);
  let cost = (r?.cost_source === 'reported' ? r.cost_usd : null) ?? figure.estimated_cost_usd;
  // Tokens at listed prices are never free: $0 for them is no reading (an estimate of zero never stands).
  if (cost === 0 && ((tokens !== null && tokens > 0) || m.rounds >= 1) && (m.ceiling !== null || m.roundUsd !== null)) {
    doubts.push(
      `the orchestrator reports $0 for ${tokens ?? 'the'} tokens${m.rounds >= 1 ? ` of ${m.rounds} round${m.rounds === 1 ? '' : 's'}` : ''}, while GET /agents lists prices`,
    );
    cost = null;
  }
  const doubt = doubts.length === 0 ? null : doubts.join('; ');
  const judged = (usd: number | null, costFrom: MeterJudgement['costFrom'], source: CostSource): MeterJudgement => ({
    spent: { cost: usd, tokens },
    usage: {
      input_tokens: input,
      output_tokens: output,
      cost_usd: usd,
      cost_source: usd === null ? 'unknown' : source,
    },
    costFrom,
    doubt,
  });
  if (cost !== null)
    return judged(cost, 'meter', r?.cost_source === 'reported' && r.cost_usd === cost ? 'reported' : 'estimated');
  if (m.ceiling !== null && input !== null && output !== null)
    return judged(cents((input * m.ceiling.input + output * m.ceiling.output) / 1e6), 'tokens', 'estimated');
  if (m.roundUsd !== null) return judged(cents(m.rounds * m.roundUsd), 'estimate', 'estimated');
  return judged(null, null, 'unknown');
}
