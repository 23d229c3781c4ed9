import { notFound } from '../../errors.js';
import type { NsedRound } from '../../protocol/wire.js';
import type { RecordedToolCall, Session, TurnStatus } from '../../session/index.js';
import type { Usage, UsageTotal } from '../../council/usage.js';
import { readVerdict, type CouncilVerdict, type GateResult } from '../../council/verdict.js';
import { sessionDocument, type TurnDocument } from './json.js';

/**
 * What a CI report (the step summary, the JUnit file, the annotations) shows of one assistant
 * turn: the same record whether it comes from the store (`sessions export`) or from the run that
 * just ended (`--summary`, `--junit`), so both print the same bytes.
 */
export interface ReportTurn {
  session: string;
  /** The session's title (its question's first line, or --title): the JUnit suite's default name. */
  title: string;
  /** The session is in the store (false with --no-save): only then can a report point at it. */
  saved: boolean;
  turn: string | null;
  question: string;
  answer: string;
  status: TurnStatus;
  error: string | null;
  policy: string | null;
  jobId: string | null;
  ts: string | null;
  /**
   * How long the turn took, in seconds: from its question's record to its answer's, the time
   * the CI job spent on it. Null when either time is unknown or unreadable, never 0.
   */
  seconds: number | null;
  rounds: NsedRound[];
  injections: Array<{ message: string; round: number | null; sequence: number | null }>;
  toolCalls: RecordedToolCall[];
  /** What this answer cost (docs/ndjson.md §4d); null when it was recorded before usage was kept, or never recorded. */
  usage: Usage | null;
  /** What the session's answers cost together; null when the turn was never recorded. */
  sessionUsage: UsageTotal | null;
}

/** A report's three inputs: the turn, and the verdict and gate result recorded on it (null when none). */
export interface ReportInput {
  turn: ReportTurn;
  verdict: CouncilVerdict | null;
  gate: GateResult | null;
}

/** Seconds from one recorded time to a later one, to the millisecond; null when either is missing or they run backwards. */
function secondsBetween(from: string | undefined, to: string): number | null {
  const ms = Date.parse(to) - Date.parse(from ?? '');
  return Number.isFinite(ms) && ms >= 0 ? ms / 1000 : null;
}

/**
 * The report of the session's assistant turn `turnId`, else of its last one (what a CI job just
 * ran). The question is the user message that turn answers; its injections are those of its job.
 */
export function reportOf(s: Session, opts: { turnId?: string; saved?: boolean } = {}): ReportInput {
  const doc = sessionDocument(s);
  const index =
    opts.turnId === undefined
      ? doc.turns.findLastIndex((t) => t.role === 'assistant')
      : doc.turns.findIndex((t) => t.id === opts.turnId && t.role === 'assistant');
  const t = doc.turns[index];
  if (t === undefined) {
    throw notFound(`session ${s.id} has no answer to report`, `run a turn first: nsed continue -s ${s.id} "…"`);
  }
  const question = doc.turns.slice(0, index).findLast((u) => u.role === 'user' && u.kind === 'message');
  const raw = s.turns.find((r) => r.id === t.id);
  return {
    turn: {
      session: s.id,
      title: s.title,
      saved: opts.saved !== false,
      turn: t.id,
      question: question?.content ?? '',
      answer: t.content,
      status: t.status,
      error: t.error,
      policy: t.policy,
      jobId: t.job_id,
      ts: t.ts === '' ? null : t.ts,
      seconds: secondsBetween(question?.ts, t.ts),
      rounds: t.rounds.filter((r) => r.scored),
      injections: injectionsOf(doc.turns, t),
      toolCalls: t.tool_calls,
      usage: t.usage,
      sessionUsage: doc.usage,
    },
    verdict: recordedVerdict(raw?.['verdict']),
    gate: recordedGate(raw?.['gate']),
  };
}

function injectionsOf(turns: readonly TurnDocument[], answer: TurnDocument): ReportTurn['injections'] {
  if (answer.job_id === null) return [];
  return turns
    .filter((u) => u.kind === 'injection' && u.job_id === answer.job_id)
    .map((u) => ({ message: u.content, round: u.injection?.round ?? null, sequence: u.injection?.sequence ?? null }));
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The verdict a turn recorded (the one reader: verdict.ts `readVerdict`). */
export const recordedVerdict = (v: unknown): CouncilVerdict | null => readVerdict(v);

export function recordedGate(g: unknown): GateResult | null {
  if (!isObject(g) || typeof g['status'] !== 'string' || !Array.isArray(g['checks'])) return null;
  return g as unknown as GateResult;
}
