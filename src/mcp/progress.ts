import type { Clock } from '../run/context.js';
import type { EventOf, NsedEvent } from '../events/events.js';
import { convergenceByRound } from '../protocol/milestone.js';
import { oneLine } from '../terminal/sanitize.js';
import { normalise } from '../council/ballots.js';
import type { SessionFeed } from './feed.js';

/**
 * The promise of docs/architecture.md "nsed mcp": while deliberate or wait runs, a progress notification at
 * least every 10 s. Events send one each; between them a heartbeat repeats where the council
 * is, every 5 s, so a host that resets its timer on progress never times out.
 */
export const HEARTBEAT_MS = 5_000;

/** A host shows a progress message in one row of a tool call: no message is longer. */
export const PROGRESS_MAX_CHARS = 200;

/**
 * A scored round in one row: `round 2/3 · convergence 0.78 · leader CortexB (0.81) · 1 wrong claim`,
 * and how many votes were stand-ins for evaluators that timed out. `said` is the convergence the
 * compat surface reports only in its reasoning milestone, for a round that carries none.
 */
export function roundLine(e: EventOf<'round'>, said?: number): string {
  const parts = [`round ${e.round}/${e.total_rounds}`];
  const convergence = e.convergence ?? said;
  if (convergence !== undefined && Number.isFinite(convergence)) parts.push(`convergence ${convergence.toFixed(2)}`);
  let leader: EventOf<'round'>['candidates'][number] | undefined;
  for (const c of e.candidates) if (leader === undefined || c.score > leader.score) leader = c;
  if (leader !== undefined) {
    parts.push(`leader ${oneLine(leader.agent_id, 60)} (${leader.score.toFixed(2)})`);
    const wrong = new Set(leader.claims.filter((c) => c.verdict === 'wrong').map((c) => normalise(c.claim))).size;
    if (wrong > 0) parts.push(`${wrong} wrong claim${wrong === 1 ? '' : 's'}`);
  }
  const standIns = e.candidates.reduce((n, c) => n + (c.synthetic_evals ?? 0), 0);
  if (standIns > 0) parts.push(`${standIns} stand-in vote${standIns === 1 ? '' : 's'}`);
  return oneLine(parts.join(' · '), PROGRESS_MAX_CHARS);
}

/** How far a deliberation is, in rounds: a round's proposals are half of it, its evaluation the rest. */
export function roundsDone(e: NsedEvent): { done: number; total: number } | undefined {
  if (e.type !== 'round') return undefined;
  return { done: e.scored ? e.round : e.round - 0.5, total: e.total_rounds };
}

/** The words of one event's progress notification; undefined for events that say nothing new (answer text). */
export function progressMessage(e: NsedEvent): string | undefined {
  switch (e.type) {
    case 'turn-start':
      return 'deliberation starting';
    case 'job':
      return `deliberation ${e.job_id} started`;
    case 'round':
      return e.scored ? roundLine(e) : `round ${e.round}/${e.total_rounds}: proposals in`;
    case 'injection':
      return `guidance landed at round ${e.round}`;
    case 'finalized':
      return `converged: ${e.chosen_agent_id} chosen at round ${e.round}`;
    case 'tool-call':
      return `the council calls ${oneLine(e.name, 60)}`;
    case 'tool-result':
      return `${oneLine(e.name, 60)} answered`;
    case 'reconnect':
      return `reconnecting (attempt ${e.attempt})`;
    case 'finish':
      return 'answer ready';
    case 'error':
      return `ended: ${oneLine(e.message, 200)}`;
    default:
      return undefined;
  }
}

/**
 * The `progress` of the k-th notification (from 0) since the deliberation reached `done` rounds:
 * a tenth of a round below `done`, then closer to it each time without reaching it. So it rises
 * with every notification (as MCP asks; a step is half a round, more than the tenth), still reads
 * in rounds, and never passes the rounds planned, however many heartbeats the last round takes.
 */
export const progressAt = (done: number, k: number): number => Math.max(0, done - 0.1) + (0.1 * k) / (k + 1);

/**
 * A `watch` for one tool call: sends a notification per event of the feed and a heartbeat in
 * between, until the returned stop is called. `progress` counts rounds (`total`: the rounds
 * planned, once a round names them), so a host can show a percentage. The notifications go one
 * after another, and stop resolves once the last has gone, so the tool's result never overtakes
 * the progress that came before it.
 */
export function progressReporter(
  clock: Clock,
  send: (progress: number, total: number | undefined, message: string) => Promise<void>,
): (feed: SessionFeed) => () => Promise<void> {
  return (feed) => {
    let done = 0;
    let total: number | undefined;
    let k = 0;
    let last = 'deliberating';
    let sent = Promise.resolve();
    const notify = (message: string): void => {
      last = message;
      const progress = progressAt(done, k);
      const of = total;
      k += 1;
      sent = sent.then(() => send(progress, of, message)).catch(() => undefined);
    };
    notify(feed.jobId === null ? 'deliberation starting' : `following deliberation ${feed.jobId}`);
    // A scored round whose convergence the compat surface has yet to say in its reasoning milestone.
    let unsaid: EventOf<'round'> | undefined;
    const stopListening = feed.listen((s) => {
      const e = s.event;
      const at = roundsDone(e);
      // A replayed round (a resume) never takes progress back.
      if (at !== undefined && at.done > done) [done, k] = [at.done, 0];
      if (at !== undefined) total = at.total;
      let m: string | undefined;
      if (e.type === 'round' && e.scored && e.convergence === undefined) {
        const said = convergenceByRound(reasoningOf(feed)).get(e.round);
        unsaid = said === undefined ? e : undefined;
        m = roundLine(e, said);
      } else if (e.type === 'reasoning' && unsaid !== undefined && e.text.includes('%')) {
        // The milestone came after its round: the round's row again, now with its convergence.
        const said = convergenceByRound(reasoningOf(feed)).get(unsaid.round);
        if (said !== undefined) [m, unsaid] = [roundLine(unsaid, said), undefined];
      } else {
        if (e.type === 'round') unsaid = undefined;
        m = progressMessage(e);
      }
      // One line per step: each agent's proposal of a round says the same thing.
      if (m !== undefined && m !== last) notify(m);
    });
    const stop = new AbortController();
    void (async () => {
      while (!stop.signal.aborted) {
        await clock.sleep(HEARTBEAT_MS, stop.signal).catch(() => undefined);
        if (!stop.signal.aborted) notify(last.startsWith('still: ') ? last : `still: ${last}`);
      }
    })();
    return () => {
      stop.abort();
      stopListening();
      return sent;
    };
  };
}

/** The turn's reasoning so far, where the compat surface says each round's convergence. */
const reasoningOf = (feed: SessionFeed): string =>
  feed
    .turnEvents()
    .map((s) => (s.event.type === 'reasoning' ? s.event.text : ''))
    .join('');
