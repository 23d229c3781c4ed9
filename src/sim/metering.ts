import { priceOf } from './agents.js';

/**
 * What one model call used, as evaluations, proposals and `job_complete` carry it
 * (`token_usage`, docs/protocol.md §3.5): tokens in and out, and the dollars the provider
 * reported, absent when the server reports none.
 */
export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  reported_cost_usd?: number;
}

/**
 * How much a job reports about what it costs. `full`: tokens and dollars everywhere. `tokens`:
 * tokens but no dollars (a client can still estimate from `/agents` prices). `none`: nothing —
 * no `token_usage`, no totals, a `/budget` with time and rounds only, a compat `usage` that
 * counts the question and the answer only (src/sim/usage.ts).
 * `runaway`: full, but from round 2 every call reports fifty times the tokens and dollars, as a
 * council that runs away would. Faults `meter=…` pick one; the strict profile reports tokens only.
 */
export type MeterMode = 'full' | 'tokens' | 'none' | 'runaway';
export const METER_MODES: readonly MeterMode[] = ['full', 'tokens', 'none', 'runaway'];

/** A plausible token count: about four characters a token, as OpenAI's rule of thumb says. */
export const tokens = (text: string): number => Math.ceil(text.length / 4);

/** How much more a runaway council's calls use from round 2 on. */
const RUNAWAY_FACTOR = 50;
/** The system prompt and protocol framing every agent call carries, in tokens. */
const PROMPT_OVERHEAD = 150;
/** The wall-clock budget `/budget` counts down from (the reference orchestrator's default job timeout). */
export const JOB_BUDGET_SECS = 1800;

const dollars = (n: number): number => Math.round(n * 1e8) / 1e8;

/** The running totals of one job: charged as each proposal and evaluation is made, so `/budget` is live. */
export class Meter {
  inputTokens = 0;
  outputTokens = 0;
  costUsd = 0;

  constructor(
    readonly mode: MeterMode,
    readonly startedAt: number,
  ) {}

  get reportsTokens(): boolean {
    return this.mode !== 'none';
  }

  get reportsDollars(): boolean {
    return this.mode === 'full' || this.mode === 'runaway';
  }

  /**
   * Charges one call of `agent` in `round` for the text it read and wrote; the `token_usage` the
   * server reports for it, or undefined when it reports none (the call is counted all the same).
   */
  charge(agent: string, round: number, read: string, wrote: string): TokenUsage | undefined {
    const factor = this.mode === 'runaway' && round >= 2 ? RUNAWAY_FACTOR : 1;
    const input = (PROMPT_OVERHEAD + tokens(read)) * factor;
    const output = tokens(wrote) * factor;
    const price = priceOf(agent);
    const cost = dollars((input * price.input_price_per_mtok + output * price.output_price_per_mtok) / 1e6);
    this.inputTokens += input;
    this.outputTokens += output;
    this.costUsd = dollars(this.costUsd + cost);
    if (!this.reportsTokens) return undefined;
    const usage: TokenUsage = { input_tokens: input, output_tokens: output, total_tokens: input + output };
    if (this.reportsDollars) usage.reported_cost_usd = cost;
    return usage;
  }

  /** The job's totals in the `token_usage` shape (`job_complete`), undefined when nothing is reported. */
  totals(): TokenUsage | undefined {
    if (!this.reportsTokens) return undefined;
    const usage: TokenUsage = {
      input_tokens: this.inputTokens,
      output_tokens: this.outputTokens,
      total_tokens: this.inputTokens + this.outputTokens,
    };
    if (this.reportsDollars) usage.reported_cost_usd = this.costUsd;
    return usage;
  }

  /** The `budget` object of `GET /deliberation/{id}/budget` (docs/protocol.md §3.7), as it stands now. */
  budget(now: number, rounds: { completed: number; total: number }): Record<string, unknown> {
    const elapsed = Math.max(0, (now - this.startedAt) / 1000);
    const out: Record<string, unknown> = {
      scope: 'standard',
      elapsed_secs: Math.round(elapsed * 10) / 10,
      remaining_secs: Math.round(Math.max(0, JOB_BUDGET_SECS - elapsed) * 10) / 10,
      rounds_completed: rounds.completed,
      total_rounds: rounds.total,
    };
    if (this.reportsTokens) {
      out.total_input_tokens = this.inputTokens;
      out.total_output_tokens = this.outputTokens;
    }
    if (this.reportsDollars) out.estimated_cost_usd = this.costUsd;
    return out;
  }
}
