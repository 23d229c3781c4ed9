import type { BatchItemStatus, BatchReport } from './export/batch-report.js';
import { batchUsage, statusOfEntry } from './export/batch-report.js';
import type { ReportTurn } from './export/report-turn.js';
import type { Usage } from '../council/usage.js';
import type { CouncilVerdict, GateResult } from '../council/verdict.js';

/**
 * Step outputs (docs/ci.md "Step outputs"): what a later step of a GitHub Actions job reads as
 * `steps.<id>.outputs.<name>` instead of parsing a file. A value is a string; a value the server
 * did not report (or nsed does not know) is the empty string, never 0. Never the token, never the
 * answer's text: the answer is in `answer-file` when it went to a file.
 */
export type StepOutputs = ReadonlyArray<readonly [name: string, value: string]>;

/** `pass` / `fail` / `inconclusive` of the gates the run set, `none` when it set none. */
export type GateOutput = GateResult['status'] | 'none';

const num = (n: number | null | undefined): string => (n === null || n === undefined ? '' : String(n));

/** The outputs of one turn (`ask`, `continue`, `resume`) once it ended, from its recorded report. */
export function turnOutputs(
  t: Pick<ReportTurn, 'session' | 'saved' | 'jobId' | 'status' | 'usage'>,
  verdict: CouncilVerdict | null,
  gate: GateResult | null,
  ended: { exitCode: number; answerFile?: string | undefined },
): StepOutputs {
  return [
    // With --no-save there is no session to name: it never reached the store.
    ['session-id', t.saved ? t.session : ''],
    ['job-id', t.jobId ?? ''],
    ['status', t.status],
    ['exit-code', String(ended.exitCode)],
    ...verdictOutputs(verdict, gate),
    ...usageOutputs(t.usage),
    ...(ended.answerFile === undefined ? [] : ([['answer-file', ended.answerFile]] as const)),
  ];
}

/** The `gate` output of a run's gate result. */
export const gateOutcome = (gate: GateResult | null): GateOutput =>
  gate === null || gate.checks.length === 0 ? 'none' : gate.status;

/** `convergence`, `chosen-agent` and `gate`: what the gate command gives too. */
export function verdictOutputs(verdict: CouncilVerdict | null, gate: GateResult | null): StepOutputs {
  return [
    ['convergence', num(verdict?.convergence.final)],
    ['chosen-agent', verdict?.chosen?.agent ?? ''],
    ['gate', gateOutcome(gate)],
  ];
}

/**
 * `cost-usd`, `cost-source`, `input-tokens`, `output-tokens`: what the turn cost (docs/ndjson.md
 * §4d). A figure nobody reported is empty, never 0, and `cost-source` then says `unknown`, also
 * for a turn that was never recorded.
 */
export function usageOutputs(u: Usage | null): StepOutputs {
  return [
    ['cost-usd', num(u?.cost_usd)],
    ['cost-source', u?.cost_source ?? 'unknown'],
    ['input-tokens', num(u?.input_tokens)],
    ['output-tokens', num(u?.output_tokens)],
  ];
}

/** Item statuses as output names: `items-ok`, `items-gate-failed`, … */
const COUNTED: ReadonlyArray<BatchItemStatus | 'interrupted' | 'not-run'> = [
  'ok',
  'gate_failed',
  'inconclusive',
  'failed',
  'cancelled',
  'skipped',
  'error',
  'interrupted',
  'not-run',
];

/**
 * The outputs of a batch: its id, the exit code, `status` (the worst item status present, the
 * one the exit code comes from; `ok` when all are), `items` and a count per status.
 */
export function batchOutputs(
  r: BatchReport,
  ended: { exitCode: number; resultsFile?: string | undefined },
): StepOutputs {
  const counts = new Map<string, number>();
  for (const e of r.entries) counts.set(statusOfEntry(e), (counts.get(statusOfEntry(e)) ?? 0) + 1);
  const worst = COUNTED.find((s) => s !== 'ok' && (counts.get(s) ?? 0) > 0) ?? 'ok';
  return [
    ['batch-id', r.batch],
    ['status', worst],
    ['exit-code', String(ended.exitCode)],
    ['items', String(r.entries.length)],
    ...COUNTED.map((s) => [`items-${s.replace('_', '-')}`, String(counts.get(s) ?? 0)] as const),
    ...batchUsageOutputs(r),
    ...(ended.resultsFile === undefined ? [] : ([['results-file', ended.resultsFile]] as const)),
  ];
}

/**
 * What the batch's items cost together, as its summary line sums them: the known figures of the
 * items that reported a usage (`cost-usd` empty, never 0, when none knew its cost), and
 * `items-cost-unknown`, the items whose cost is in no sum.
 */
function batchUsageOutputs(r: BatchReport): StepOutputs {
  const spent = batchUsage(r);
  return [
    ['cost-usd', num(spent.cost_usd)],
    ['input-tokens', num(spent.input_tokens)],
    ['output-tokens', num(spent.output_tokens)],
    ['items-cost-unknown', String(spent.unknown_cost_turns)],
  ];
}

/**
 * The outputs in GitHub's multi-line form (`name<<DELIM`, the value, `DELIM`), one delimiter per
 * value drawn from `randomHex` and drawn again in the (astronomically unlikely) case that the
 * value holds it, so no value can end its own entry early or add an output of its own
 * (docs/reliability.md #195).
 */
export function githubOutputText(outputs: StepOutputs, randomHex: (bytes: number) => string): string {
  let out = '';
  for (const [name, value] of outputs) {
    let delim = `nsed_${randomHex(16)}`;
    while (value.includes(delim) || name.includes(delim)) delim = `nsed_${randomHex(16)}`;
    out += `${name}<<${delim}\n${value}\n${delim}\n`;
  }
  return out;
}
