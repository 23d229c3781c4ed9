// MCP Tasks (the 2025-11-25 design, experimental) as nsed keeps them: a task is one question of a
// session, named by the session and the user turn that asked it, and its state is that turn's as
// the store records it (or as this server follows it live). Nothing of a task lives in the server
// process, so a host reads a task's result after the server restarted. This file holds the pure
// parts: the task id, and a turn's state as a task's status and status message;
// tasks-store.ts is the SDK's TaskStore over them.

import type { TaskStatus } from '@modelcontextprotocol/sdk/types.js';
import { councilLine } from '../council/council-status.js';
import { isValidId, type Session } from '../session/index.js';
import { oneLine } from '../terminal/sanitize.js';
import type { SessionFeed } from './feed.js';
import { progressMessage } from './progress.js';
import { storedState, verdictLine, type TurnState } from './turn-state.js';

/** What a task id names: a session, and the user turn (the question) whose answer the task is. */
export interface TaskRef {
  session: string;
  turn: string;
}

/**
 * `SESSION.TURN`. Both are store ids (letters, digits, `-`, `_`), so the dot parts them and no
 * id of this shape can name a file outside the store.
 */
export const taskId = (ref: TaskRef): string => `${ref.session}.${ref.turn}`;

/** The longest task id read: two ids of at most 128 characters and the dot. */
const TASK_ID_MAX = 257;

/**
 * A task id a client sent, back to its session and turn; undefined for any other string. The id
 * comes from the client: it is checked here, whole, before any part of it reaches the store.
 */
export function parseTaskId(id: string): TaskRef | undefined {
  if (id.length > TASK_ID_MAX) return undefined;
  const parts = id.split('.');
  if (parts.length !== 2) return undefined;
  const [session = '', turn = ''] = parts;
  return isValidId(session) && isValidId(turn) ? { session, turn } : undefined;
}

/**
 * The user turn a turn-starting tool call asked, once its job is named: the turn the session's
 * pending job answers; when the turn ended already, the question before the answer `answer`
 * names (the assistant turn of the run's turn-start); else the session's last question.
 */
export function askedTurn(session: Session, answer: string | null): string | undefined {
  if (session.pending_job !== undefined) return session.pending_job.turn;
  const at = answer === null ? -1 : session.turns.findIndex((t) => t.id === answer);
  const before = at === -1 ? session.turns : session.turns.slice(0, at);
  return before.findLast((t) => t.role === 'user' && t.kind === 'message')?.id;
}

/**
 * The state of the question `turn` asked, as the store records it: its answer (the assistant
 * turn between it and the next question), running while the session's pending job answers it.
 * Undefined when the session asked no such question.
 */
export function storedTurnState(session: Session, turn: string): TurnState | undefined {
  const pending = session.pending_job?.turn === turn ? session.pending_job : undefined;
  const at = session.turns.findIndex((t) => t.id === turn && t.role === 'user' && t.kind === 'message');
  if (at === -1 && pending === undefined) return undefined;
  const after = at === -1 ? [] : session.turns.slice(at + 1);
  const next = after.findIndex((t) => t.role === 'user' && t.kind === 'message');
  const answer = (next === -1 ? after : after.slice(0, next)).findLast(
    (t) => t.role === 'assistant' && t.kind === 'message',
  );
  const state = storedState({ ...session, turns: answer === undefined ? [] : [answer] }, 0);
  // A job still runs for it: an answer cut short by an owner that went away is no end, nor is
  // none recorded yet. An answer that stopped at a call waits for it (the chat surface).
  if (pending === undefined || state.status === 'waiting') return state;
  return { ...state, status: 'running', done: false, job_id: pending.job_id, content: null, error: null };
}

/** The assistant turn a run's current turn answers in (its turn-start), if the run named it. */
export function feedAnswerTurn(feed: SessionFeed): string | null {
  const start = feed.turnEvents().find((s) => s.event.type === 'turn-start')?.event;
  return start?.type === 'turn-start' && start.turn !== '' ? start.turn : null;
}

/**
 * A turn's state as a task's status. A turn that ended with a tool error (it failed, was cut
 * off, or its answer is refused) is a failed task, as the spec has it for a result with isError.
 */
export function taskStatus(s: TurnState, isError: boolean): TaskStatus {
  switch (s.status) {
    case 'starting':
    case 'running':
      return 'working';
    case 'waiting':
      return 'input_required';
    case 'cancelled':
      return 'cancelled';
    case 'complete':
      return isError ? 'failed' : 'completed';
    default:
      return 'failed';
  }
}

/** A status message is one row of a host's task list, as a progress message is of a tool call. */
export const STATUS_MESSAGE_MAX_CHARS = 300;

/**
 * The task's status message: while it works, the progress line a tool call's progress
 * notification would carry now (the last step of the run this server follows); while it waits,
 * what it waits for and how to answer; at its end, the verdict or how it ended.
 */
export function statusMessage(s: TurnState, feed: SessionFeed | undefined): string {
  const id = s.session ?? '?';
  let line: string;
  if (s.status === 'waiting') {
    const calls = s.pending_calls.map((c) =>
      c.question === null ? `${c.id}: ${c.name}(${c.arguments})` : `${c.id}: asks "${c.question}"`,
    );
    line = `the council waits for an answer (answer_tool_call, session ${id}): ${calls.join('; ')}`;
  } else if (s.status === 'complete') {
    const council = councilLine(s.council);
    line = `${council === null ? '' : `${council} · `}${verdictLine(id, s.verdict)}`;
  } else if (s.done) {
    line = `session ${id} ended ${s.status}${s.error === null ? '' : `: ${s.error.message}`}`;
  } else {
    const events = feed?.turnEvents() ?? [];
    const said = events.flatMap((e) => progressMessage(e.event) ?? []).at(-1);
    line =
      said ??
      (s.job_id === null ? 'deliberation starting' : `deliberation ${s.job_id} running, followed by another process`);
  }
  return oneLine(line, STATUS_MESSAGE_MAX_CHARS);
}
