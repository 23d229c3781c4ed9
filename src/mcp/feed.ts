import type { EventOf, NsedEvent } from '../events/events.js';
import { askUserArgs } from '../tools/ask-person.js';

/** Events a feed keeps for `wait ... after`: a deliberation's rounds, calls and end fit many times over. */
const KEPT_EVENTS = 4000;

export interface Sequenced {
  seq: number;
  event: NsedEvent;
}

/** How the command that followed a session ended: its exit code and, if it failed, its error. */
export interface RunEnd {
  code: number;
  error?: { code: string; exit_code: number; message: string; hint?: string | undefined };
}

/**
 * One session's events as this server saw them, from the run that started its turn here or from
 * a read-only watch of a turn started elsewhere (docs/architecture.md "nsed mcp"). `seq` grows
 * across the session's turns, so a host's `after` cursor stays meaningful after a `continue`.
 * Waiters are woken on every event and when the run ends; nothing here waits by itself.
 */
export class SessionFeed {
  private seq = 0;
  private readonly log: Sequenced[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly listeners = new Set<(s: Sequenced) => void>();
  /** True while a run of this server follows the session (a turn, a resume or a watch). */
  followed = false;
  ended: RunEnd | undefined;
  jobId: string | null = null;
  /** The current turn's surface: on the chat surface a call usually ends the answer (exit 10) rather than waiting live. */
  path: 'compat' | 'native' | null = null;
  /** The seq of the current turn's start: the state describes events from there on. */
  private turnFrom = 0;

  constructor(readonly session: string) {}

  get last(): number {
    return this.seq;
  }

  push(event: NsedEvent): void {
    if (event.type === 'turn-start') {
      this.turnFrom = this.seq + 1;
      this.ended = undefined;
      this.jobId = null;
      this.path = event.path;
    }
    if (event.type === 'job') this.jobId = event.job_id;
    this.seq += 1;
    const s = { seq: this.seq, event };
    this.log.push(s);
    if (this.log.length > KEPT_EVENTS) this.log.splice(0, this.log.length - KEPT_EVENTS);
    for (const l of this.listeners) l(s);
    this.wake();
  }

  /** The run following the session ended (its turn's terminal event is in the log already). */
  end(end: RunEnd): void {
    this.followed = false;
    this.ended = end;
    this.wake();
  }

  /** Calls `fn` for every later event until the returned function is called. */
  listen(fn: (s: Sequenced) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Resolves at the next event or end, or when `signal` aborts; never on its own. */
  changed(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = (): void => {
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Wakes the waiters though nothing was logged (a question the host declined to ask). */
  poke(): void {
    this.wake();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  /** The current turn's events, and those after `after`. */
  turnEvents(): Sequenced[] {
    return this.log.filter((s) => s.seq >= this.turnFrom);
  }

  since(after: number): Sequenced[] {
    return this.log.filter((s) => s.seq > after);
  }
}

export interface PendingCall {
  id: string;
  name: string;
  arguments: string;
  question: string | null;
  options: string[];
}

/** The calls of a turn still waiting for their result. */
export function pendingCalls(events: readonly Sequenced[]): PendingCall[] {
  const settled = new Set(events.flatMap((s) => (s.event.type === 'tool-result' ? [s.event.id] : [])));
  const calls: PendingCall[] = [];
  for (const { event: e } of events) {
    if (e.type !== 'tool-call' || settled.has(e.id) || calls.some((c) => c.id === e.id)) continue;
    const ask = e.name === 'ask_user' ? askUserArgs(e.arguments) : undefined;
    calls.push({
      id: e.id,
      name: e.name,
      arguments: e.arguments,
      question: ask?.question ?? null,
      options: ask?.options ?? [],
    });
  }
  return calls;
}

/** The agent whose candidate scored highest in a scored round; null when none was scored. */
export function leaderOf(round: EventOf<'round'>): string | null {
  let best: { agent_id: string; score: number } | undefined;
  for (const c of round.candidates) if (best === undefined || c.score > best.score) best = c;
  return round.scored && best !== undefined ? best.agent_id : null;
}

/** The events a `wait` returns for before the end: something a host may act on or show. */
export function notable(e: NsedEvent): boolean {
  return (e.type === 'round' && e.scored) || e.type === 'tool-call' || e.type === 'injection';
}
