// A turn's result (src/turn/turn-result.ts) as promptfoo's ProviderResponse: the answer as
// `output`, the tokens as `tokenUsage`, the dollars as `cost` (so promptfoo's `cost` assertion
// and its totals count them), and the council's verdict, gate, session and job as `metadata`.
// Unknown stays absent, never 0 (docs/ndjson.md "Usage"): promptfoo sums what it is given.
import type { NsedError } from '../errors.js';
import type { TurnResult } from '../turn/turn-result.js';
import type { Usage } from '../council/usage.js';

/** promptfoo's token counts (its `TokenUsage`): each present only when known. */
export interface PromptfooTokenUsage {
  total?: number;
  prompt?: number;
  completion?: number;
}

/** The part of promptfoo's `ProviderResponse` the provider fills. */
export interface PromptfooResponse {
  output?: string;
  error?: string;
  tokenUsage?: PromptfooTokenUsage;
  cost?: number;
  metadata?: Record<string, unknown>;
}

/** The tokens promptfoo is told of; undefined when the server reported none. */
export function tokenUsageOf(usage: Usage | null): PromptfooTokenUsage | undefined {
  const prompt = usage?.input_tokens ?? null;
  const completion = usage?.output_tokens ?? null;
  if (prompt === null && completion === null) return undefined;
  return {
    ...(prompt === null ? {} : { prompt }),
    ...(completion === null ? {} : { completion }),
    // A total of one known figure would read as the whole; it is given only when both are known.
    ...(prompt === null || completion === null ? {} : { total: prompt + completion }),
  };
}

/**
 * The response for a turn that ran (`result`), or for a run that ended before its turn began
 * (`thrown` alone: a bad config, a server that cannot be reached). A turn that completed is an
 * answer even when a gate or the schema failed (promptfoo's assertions judge it; `metadata.error`
 * says why nsed would have exited non-zero); one that did not complete is promptfoo's `error`,
 * with what it cost.
 */
export function providerResponse(result: TurnResult | undefined, thrown: NsedError | undefined): PromptfooResponse {
  if (result === undefined) return { error: errorLine(thrown?.message ?? 'the turn did not start', thrown?.hint) };
  const tokenUsage = tokenUsageOf(result.usage);
  const cost = result.usage?.cost_usd ?? null;
  const error =
    result.error ??
    (thrown === undefined ? null : { code: thrown.code, exit_code: thrown.exitCode, message: thrown.message });
  const metadata: Record<string, unknown> = {
    session: result.session,
    turn: result.turn,
    job_id: result.job,
    status: result.status,
    verdict: result.verdict,
    gate: result.gate,
    usage: result.usage,
    cost_source: result.usage?.cost_source ?? 'unknown',
    exit_code: error?.exit_code ?? result.exitCode,
    error,
  };
  if ('structured' in result) metadata['structured'] = result.structured;
  return {
    output: result.answer,
    ...(result.status === 'complete' ? {} : { error: errorLine(error?.message ?? `the turn ended ${result.status}`) }),
    ...(tokenUsage === undefined ? {} : { tokenUsage }),
    ...(cost === null ? {} : { cost }),
    metadata,
  };
}

const errorLine = (message: string, hint?: string): string =>
  `nsed: ${message}${hint === undefined ? '' : ` (hint: ${hint})`}`;
