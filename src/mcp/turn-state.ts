import { councilLine, councilStatus, type CouncilStatus } from '../council/council-status.js';
import type { EventOf, NsedEvent } from '../events/events.js';
import { convergenceByRound } from '../protocol/milestone.js';
import type { Session, Turn } from '../session/index.js';
import { gateCheckLines } from '../output/gate-lines.js';
import { dollars, type Usage } from '../council/usage.js';
import type { Detail } from './tool-defs.js';
import type { CouncilVerdict, GateResult } from '../council/verdict.js';
import { leaderOf, pendingCalls, type PendingCall, type SessionFeed } from './feed.js';

/** `structuredContent` of deliberate, wait, continue and fork (tool-defs.ts TURN_STATE). */
export interface TurnState {
  session: string | null;
  job_id: string | null;
  status: 'starting' | 'running' | 'waiting' | 'complete' | 'failed' | 'cancelled' | 'interrupted';
  done: boolean;
  seq: number;
  rounds: Array<{ round: number; total_rounds: number; convergence: number | null; leader: string | null }>;
  injections: Array<{ message: string; round: number }>;
  pending_calls: PendingCall[];
  content: string | null;
  verdict: CouncilVerdict | null;
  gate: GateResult | null;
  /** Whether the whole council voted (src/council/council-status.ts): a degraded council never reads like a healthy one. */
  council: CouncilStatus;
  /** With a `schema`: the answer parsed, or null when it does not match (as `-o json`). */
  structured?: unknown;
  /** No orchestrator reports token or cost figures to nsed yet: unknown is null, never 0. */
  /** What the turn cost (docs/ndjson.md "Usage"), or null while nothing was reported. */
  usage: Usage | null;
  error: { code: string; exit_code: number | null; message: string } | null;
}

const ERROR_STATUS: Record<string, TurnState['status']> = {
  cancelled: 'cancelled',
  interrupted: 'interrupted',
  timeout: 'interrupted',
  tool_pending: 'waiting',
};

/**
 * What a feed says of its session's current turn, with the rounds and injections after `after`.
 * A turn that stopped at a tool call (exit 10) is `waiting`, not done: its call is answered with
 * answer_tool_call and the deliberation goes on.
 */
export function feedState(feed: SessionFeed, after: number): TurnState {
  const events = feed.turnEvents();
  const terminal = [...events].reverse().find((s) => s.event.type === 'finish' || s.event.type === 'error')?.event as
    EventOf<'finish' | 'error'> | undefined;
  const calls = pendingCalls(events);
  const fresh = events.filter((s) => s.seq > after).map((s) => s.event);
  let status: TurnState['status'];
  // An answer that ended at tool calls (exit 10) is no answer yet: the calls wait for theirs.
  if (terminal?.type === 'finish' && terminal.finish_reason === 'tool_calls' && calls.length > 0) status = 'waiting';
  else if (terminal?.type === 'finish') status = 'complete';
  else if (terminal?.type === 'error') status = ERROR_STATUS[terminal.code] ?? terminal.status ?? 'failed';
  else if (feed.ended !== undefined) status = feed.ended.code === 0 ? 'complete' : 'failed';
  else if (calls.length > 0) status = 'waiting';
  else status = feed.jobId === null ? 'starting' : 'running';
  const endError = feed.ended?.error;
  const lastUsage = events.findLast((s) => s.event.type === 'usage')?.event;
  const verdict = terminal?.verdict ?? null;
  return {
    session: feed.session,
    job_id: terminal?.type === 'finish' ? (terminal.job_id ?? feed.jobId) : feed.jobId,
    status,
    done: status !== 'starting' && status !== 'running' && status !== 'waiting',
    seq: feed.last,
    rounds: roundsOf(fresh, milestonesOf(events)),
    injections: fresh.flatMap((e) => (e.type === 'injection' ? [{ message: e.message, round: e.round }] : [])),
    pending_calls: calls,
    content: terminal?.type === 'finish' && status === 'complete' ? terminal.content : null,
    verdict,
    gate: terminal?.gate ?? null,
    council: councilStatus({
      rounds: events.flatMap((s) => (s.event.type === 'round' ? [s.event] : [])),
      verdict,
      failed: status === 'failed',
    }),
    ...(terminal?.type === 'finish' && terminal.structured !== undefined ? { structured: terminal.structured } : {}),
    // The last figures the stream reported, as -o json names them.
    usage: lastUsage?.type === 'usage' ? lastUsage.usage : (terminal?.usage ?? null),
    // As -o json: the turn's error, or how a completed one failed its gates or schema (exit 12, 13, 14).
    error:
      terminal?.type === 'error'
        ? { code: terminal.code, exit_code: terminal.exit_code, message: terminal.message }
        : endError === undefined
          ? null
          : { code: endError.code, exit_code: endError.exit_code, message: endError.message },
  };
}

/**
 * The scored rounds among `events`. The compat surface reports a round's convergence only in its
 * reasoning milestone (docs/protocol.md §4.3), which the verdict reads too: `said` holds the turn's
 * milestones, so a round's convergence here is the one its verdict shows.
 */
function roundsOf(events: readonly NsedEvent[], said: ReadonlyMap<number, number>): TurnState['rounds'] {
  return events.flatMap((e) =>
    e.type === 'round' && e.scored
      ? [
          {
            round: e.round,
            total_rounds: e.total_rounds,
            convergence: e.convergence ?? said.get(e.round) ?? null,
            leader: leaderOf(e),
          },
        ]
      : [],
  );
}

/** The convergence milestones in the turn's reasoning, per round. */
const milestonesOf = (events: ReadonlyArray<{ event: NsedEvent }>): Map<number, number> =>
  convergenceByRound(events.map((s) => (s.event.type === 'reasoning' ? s.event.text : '')).join(''));

const TURN_STATUS: Record<Turn['status'], TurnState['status']> = {
  complete: 'complete',
  interrupted: 'interrupted',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** A session nothing follows: its last assistant turn as recorded in the store. */
export function storedState(session: Session, seq: number): TurnState {
  const turn = [...session.turns].reverse().find((t) => t.role === 'assistant');
  const waiting = turn?.tool_calls?.filter((c) => c.status === undefined) ?? [];
  const status: TurnState['status'] =
    turn === undefined ? 'starting' : waiting.length > 0 ? 'waiting' : TURN_STATUS[turn.status];
  return {
    session: session.id,
    job_id: turn?.job_id ?? null,
    status,
    done: turn !== undefined && waiting.length === 0,
    seq,
    rounds: [],
    injections: [],
    pending_calls: waiting.map((c) => ({
      id: c.id,
      name: c.name,
      arguments: c.arguments,
      question: null,
      options: [],
    })),
    content: turn === undefined ? null : turn.content,
    verdict: turn?.verdict ?? null,
    gate: turn?.gate ?? null,
    council: councilStatus({ rounds: turn?.rounds ?? [], verdict: turn?.verdict ?? null, failed: status === 'failed' }),
    usage: turn?.usage ?? null,
    // The store keeps how the turn ended, not the exit code of the run that recorded it.
    error: turn?.error === undefined ? null : { code: turn.status, exit_code: null, message: turn.error },
  };
}

/**
 * The text beside the structured result: what a host shows, and what a model reads first. A
 * council that lost votes says so on the first line, before the answer it gave. `brief` (the
 * default): the answer and a one-line verdict, the transcript and report being linked beside it;
 * `full`: then a line per round, per gate check, the usage and the calls waiting.
 */
export function stateText(s: TurnState, detail: Detail = 'brief'): string {
  const line = councilLine(s.council);
  const brief = line === null ? bareText(s) : `${line}\n${bareText(s)}`;
  return detail === 'full' ? [brief, ...fullLines(s)].join('\n') : brief;
}

/** What `detail: "full"` adds: the rounds, the gate's checks, the usage, the calls waiting. */
function fullLines(s: TurnState): string[] {
  const out: string[] = [''];
  for (const r of s.rounds)
    out.push(
      `round ${r.round}/${r.total_rounds} · convergence ${r.convergence === null ? 'unknown' : r.convergence.toFixed(2)} · leader ${r.leader ?? 'unknown'}`,
    );
  for (const i of s.injections) out.push(`guidance at round ${i.round}: ${i.message}`);
  if (s.gate !== null) out.push(`gate ${s.gate.status}`, ...gateCheckLines(s.gate).map((l) => `  ${l}`));
  out.push(usageText(s.usage));
  if (s.status !== 'waiting')
    for (const c of s.pending_calls) out.push(`waiting call ${c.id}: ${c.name}(${c.arguments})`);
  return out;
}

/** `usage: 1200 tokens in, 340 out · $0.042`; unknown figures said so, never 0. */
function usageText(u: Usage | null): string {
  if (u === null) return 'usage: unknown';
  const n = (v: number | null): string => (v === null ? 'unknown' : String(v));
  return `usage: ${n(u.input_tokens)} tokens in, ${n(u.output_tokens)} out · ${dollars(u)}`;
}

function bareText(s: TurnState): string {
  const id = s.session ?? '?';
  if (s.status === 'complete') return `${s.content ?? ''}\n\n— ${verdictLine(id, s.verdict)}`;
  if (s.status === 'waiting') {
    const lines = s.pending_calls.map(
      (c) => `- ${c.id}: ${c.question === null ? `${c.name}(${c.arguments})` : `asks "${c.question}"`}`,
    );
    return `session ${id} waits for an answer (answer_tool_call):\n${lines.join('\n')}`;
  }
  if (s.done) return `session ${id} ended ${s.status}${s.error === null ? '' : `: ${s.error.message}`}`;
  const last = s.rounds.at(-1);
  const where = last === undefined ? '' : ` at round ${last.round}/${last.total_rounds}`;
  return `session ${id} is still deliberating${where}; call wait with session "${id}" and after ${s.seq}`;
}

/** `session ID · chosen AGENT · convergence P%`, with what the verdict knows. */
export function verdictLine(session: string, v: CouncilVerdict | null | undefined): string {
  const parts = [`session ${session}`];
  if (v?.chosen != null) parts.push(`chosen ${v.chosen.agent}`);
  const c = v?.convergence.final;
  if (typeof c === 'number') parts.push(`convergence ${Math.round(c * 100)}%`);
  return parts.join(' · ');
}
