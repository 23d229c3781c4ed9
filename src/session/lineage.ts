import { notFound, usageError, type NsedError } from '../errors.js';
import { printableId } from './ids.js';
import type { Session, Turn } from './model.js';

export interface LineageMessage {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * The transcript replayed as `messages[]` (the client owns the thread): user turns and injections as `user`,
 * only complete assistant answers as `assistant` (a partial or failed answer is not something the
 * council said), empty contents skipped. `uptoTurnIndex` is 0-based and inclusive.
 */
export function lineageMessages(s: Session, uptoTurnIndex?: number): LineageMessage[] {
  const turns = uptoTurnIndex === undefined ? s.turns : s.turns.slice(0, uptoTurnIndex + 1);
  const out: LineageMessage[] = [];
  for (const t of turns) {
    if (t.content.trim() === '') continue;
    if (t.role === 'user') out.push({ role: 'user', content: t.content });
    else if (t.role === 'assistant' && t.status === 'complete') out.push({ role: 'assistant', content: t.content });
  }
  return out;
}

/** A message of the OpenAI shape, tool calls and results included (the compat replay). */
export interface ToolAwareMessage {
  role: 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/**
 * The lineage as the compat surface replays it: like lineageMessages, but an answer that used
 * tools is preceded by its tool round in the OpenAI shape (the assistant message carrying the
 * calls, then one `tool` message per call id). Only calls that got a result are replayed: an
 * expired or still-waiting call has nothing to pair with, and a listed call must be answered.
 */
export function lineageWithTools(s: Session, uptoTurnIndex?: number): ToolAwareMessage[] {
  const turns = uptoTurnIndex === undefined ? s.turns : s.turns.slice(0, uptoTurnIndex + 1);
  const out: ToolAwareMessage[] = [];
  for (const t of turns) {
    if (t.role === 'assistant' && t.status === 'complete') {
      const answered = (t.tool_calls ?? []).filter((c) => typeof c.result === 'string' && c.status !== 'expired');
      if (answered.length > 0) {
        out.push({
          role: 'assistant',
          content: null,
          tool_calls: answered.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: c.arguments },
          })),
        });
        for (const c of answered) out.push({ role: 'tool', tool_call_id: c.id, content: c.result ?? '' });
      }
    }
    if (t.content.trim() === '') continue;
    if (t.role === 'user') out.push({ role: 'user', content: t.content });
    else if (t.role === 'assistant' && t.status === 'complete') out.push({ role: 'assistant', content: t.content });
  }
  return out;
}

export function findAssistantTurnForJob(s: Session, jobId: string): Turn | undefined {
  return s.turns.find((t) => t.role === 'assistant' && t.job_id === jobId);
}

/**
 * Records a job's answer once (the reference client's append_reply): a turn for the same job is
 * replaced in place, keeping its id and position, so a replayed or reconciled answer never
 * appears twice. A complete answer is never replaced by a lesser one (a late interrupted replay).
 * Returns the turn as stored.
 */
export function upsertAssistantTurn(s: Session, turn: Turn): Turn {
  const at =
    turn.job_id === undefined ? -1 : s.turns.findIndex((t) => t.role === 'assistant' && t.job_id === turn.job_id);
  const existing = s.turns[at];
  if (existing === undefined) {
    s.turns.push(turn);
    return turn;
  }
  if (existing.status === 'complete' && turn.status !== 'complete') return existing;
  const replaced: Turn = { ...turn, id: existing.id };
  s.turns[at] = replaced;
  return replaced;
}

/**
 * Records an injection once per (job_id, sequence): the acknowledgement and the stream's
 * `nsed_injected` describe the same message, so a second sighting only fills in what the first
 * lacked (its round). A new injection goes before its job's answer when that is already recorded,
 * so the replayed transcript keeps the order the council saw.
 */
export function upsertInjection(s: Session, turn: Turn): Turn {
  // A record without a sequence (the compat fallback never learns it) is the same injection as
  // one with the same text, so the two writers of a session merge instead of doubling it.
  const same = (t: Turn): boolean =>
    t.kind === 'injection' &&
    t.job_id === turn.job_id &&
    (turn.sequence === undefined || t.sequence === undefined
      ? t.content === turn.content
      : t.sequence === turn.sequence);
  const at = s.turns.findIndex(same);
  const existing = s.turns[at];
  if (existing !== undefined) {
    const merged: Turn = { ...existing, ...turn, id: existing.id };
    s.turns[at] = merged;
    return merged;
  }
  const answer =
    turn.job_id === undefined ? -1 : s.turns.findIndex((t) => t.role === 'assistant' && t.job_id === turn.job_id);
  if (answer === -1) s.turns.push(turn);
  else s.turns.splice(answer, 0, turn);
  return turn;
}

/**
 * Resolves `fork --at` to a 0-based index: a turn id, a 1-based position, or a negative
 * position counted from the end (-1 = the last turn).
 */
export function resolveTurnRef(s: Session, ref: string): number {
  const byId = s.turns.findIndex((t) => t.id === ref);
  if (byId !== -1) return byId;
  const count = s.turns.length;
  if (/^-?\d+$/.test(ref.trim())) {
    const n = Number(ref.trim());
    if (n === 0) throw usageError('turn positions start at 1 (or count back from the end with -1)');
    const index = n > 0 ? n - 1 : count + n;
    if (index < 0 || index >= count) throw outOfRange(s, n);
    return index;
  }
  throw notFound(
    `session ${s.id} has no turn '${printableId(ref)}'`,
    `see its turns with \`nsed sessions show ${s.id}\``,
  );
}

function outOfRange(s: Session, n: number): NsedError {
  const has = s.turns.length === 1 ? '1 turn' : `${s.turns.length} turns`;
  return notFound(
    `session ${s.id} has ${has}; there is no turn ${n}`,
    `see its turns with \`nsed sessions show ${s.id}\``,
  );
}
