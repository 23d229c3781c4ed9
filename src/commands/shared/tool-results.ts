import { NsedError, notFound, usageError } from '../../errors.js';
import type { Session, Turn } from '../../session/index.js';
import { buildChatRequest } from '../../turn/build-request.js';
import type { TurnSpec } from '../../turn/run-turn.js';
import { followUpBody } from '../../turn/tools/tool-round.js';
import type { TranscriptToolCall, TranscriptToolResult } from '../../events/transcript.js';
import { readFlagFile, readStdin, type PromptContext } from '../../input/prompt.js';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../../tools/declared.js';

export interface GivenResult {
  id: string;
  /** A file to read, or '-' for standard input. */
  source: string;
}

/** `--tool-result CALL_ID=FILE` (repeatable; `-` reads standard input, at most once). */
export function parseToolResultFlags(list: readonly string[]): GivenResult[] {
  const out = list.map((spec) => {
    const eq = spec.indexOf('=');
    if (eq <= 0 || eq === spec.length - 1)
      throw usageError(
        `--tool-result '${spec.slice(0, 60)}' is not CALL_ID=FILE`,
        'e.g. --tool-result call_ab12=answer.txt (- reads stdin)',
      );
    return { id: spec.slice(0, eq), source: spec.slice(eq + 1) };
  });
  if (out.filter((g) => g.source === '-').length > 1)
    throw usageError('only one --tool-result can read standard input (-)');
  return out;
}

/** One line of text ends the way a tool's output does: one trailing newline is not part of it. */
async function readValue(g: GivenResult, ctx: PromptContext): Promise<string> {
  // Bounded by --timeout like every read of standard input (docs/reliability.md #111).
  if (g.source === '-') return (await readStdin(ctx, `the result of ${g.id}`)).replace(/\r?\n$/, '');
  // A tool's result is capped as a declared tool's output is (src/tools/declared.ts).
  const text = await readFlagFile(g.source, `--tool-result (${g.id})`, ctx, DEFAULT_MAX_OUTPUT_BYTES);
  return text.replace(/\r?\n$/, '');
}

/** The turn of the session's running job that stopped at tool calls, and the calls still unanswered. */
export function waitingTurn(session: Session): { turn: Turn; waiting: TranscriptToolCall[] } {
  const pending = session.pending_job;
  const turn =
    pending === undefined
      ? undefined
      : session.turns.find((t) => t.role === 'assistant' && t.job_id === pending.job_id);
  const waiting = (turn?.tool_calls ?? [])
    .filter((c) => c.status === undefined)
    .map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
  if (turn === undefined || waiting.length === 0) {
    throw new NsedError('conflict', `nothing in session ${session.id} waits for a tool result`, {
      hint: `see its turns with 'nsed sessions show ${session.id}'`,
    });
  }
  return { turn, waiting };
}

/**
 * Run inside the locked write that claims the session for the results: the job is still the
 * one the spec follows and every given call still waits. Another process may have answered
 * them between this command's read and its lock.
 */
export function assertStillWaiting(s: Session, spec: TurnSpec, given: readonly GivenResult[]): void {
  const { turn, waiting } = waitingTurn(s);
  const answered = given.find((g) => !waiting.some((c) => c.id === g.id));
  if (turn.id !== spec.assistantTurnId || answered !== undefined) {
    throw new NsedError(
      'conflict',
      `tool call ${answered?.id ?? given[0]?.id ?? ''} of session ${s.id} was answered by another nsed process`,
      { hint: `see its turns with 'nsed sessions show ${s.id}'` },
    );
  }
}

/**
 * The spec that resumes a turn stopped at tool calls: the same job, the same assistant turn,
 * the given results (every waiting call needs one) handed back on the same thread.
 */
export async function toolResultSpec(
  session: Session,
  given: readonly GivenResult[],
  ctx: PromptContext,
  stream: boolean,
): Promise<TurnSpec> {
  const { turn, waiting } = waitingTurn(session);
  const pending = session.pending_job;
  if (pending === undefined) throw new Error('waitingTurn guarantees a pending job');
  for (const g of given) {
    if (!(turn.tool_calls ?? []).some((c) => c.id === g.id))
      throw notFound(
        `the council made no tool call '${g.id}' in this turn`,
        `waiting: ${waiting.map((c) => c.id).join(', ')}`,
      );
  }
  const missing = waiting.filter((c) => !given.some((g) => g.id === c.id));
  if (missing.length > 0)
    throw usageError(
      `give a result for every waiting call; missing: ${missing.map((c) => `${c.id} (${c.name})`).join(', ')}`,
    );
  const calls = (turn.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
  const earlier: TranscriptToolResult[] = (turn.tool_calls ?? []).flatMap((c) =>
    c.status === undefined
      ? []
      : [
          {
            id: c.id,
            name: c.name,
            content: c.result ?? '',
            exit_code: c.exit_code ?? null,
            status: c.status as TranscriptToolResult['status'],
            duration_ms: c.duration_ms ?? null,
          },
        ],
  );
  const now: TranscriptToolResult[] = [];
  for (const g of given) {
    const call = calls.find((c) => c.id === g.id);
    now.push({
      id: g.id,
      name: call?.name ?? '',
      content: await readValue(g, ctx),
      exit_code: null,
      status: 'answered',
      duration_ms: null,
    });
  }
  if (pending.path !== 'compat') {
    throw usageError(
      'this deliberation runs on the native surface: answer its call while it runs',
      `nsed tool-result -s ${session.id} ${waiting[0]?.id ?? 'CALL_ID'} VALUE`,
    );
  }
  const userIndex = session.turns.findIndex((t) => t.id === pending.turn);
  const upto = userIndex === -1 ? {} : { uptoTurnIndex: userIndex };
  const base = buildChatRequest(session, pending.policy, {
    stream,
    ...(session.tools === undefined ? {} : { tools: session.tools }),
    ...upto,
  });
  if (base.kind !== 'chat') throw new Error('compat request expected');
  const results = [...earlier, ...now];
  return {
    sessionId: session.id,
    userTurnId: pending.turn,
    assistantTurnId: turn.id,
    policy: pending.policy,
    path: 'compat',
    stream,
    start: { kind: 'chat', body: followUpBody(base.body, calls, results), threadKey: base.threadKey },
    toolRound: { calls, results, base },
  };
}
