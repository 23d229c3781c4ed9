import type { Clock } from '../context.js';
import type { NsedEvent } from '../events.js';
import { oneLine } from '../terminal/sanitize.js';
import { leaderOf, type SessionFeed } from './feed.js';

/**
 * The promise of README "nsed mcp": while deliberate or wait runs, a progress notification at
 * least every 10 s. Events send one each; between them a heartbeat repeats where the council
 * is, every 5 s, so a host that resets its timer on progress never times out.
 */
export const HEARTBEAT_MS = 5_000;

/** The words of one event's progress notification; undefined for events that say nothing new (answer text). */
export function progressMessage(e: NsedEvent): string | undefined {
  switch (e.type) {
    case 'turn-start':
      return 'deliberation starting';
    case 'job':
      return `deliberation ${e.job_id} started`;
    case 'round': {
      const at = `round ${e.round}/${e.total_rounds}`;
      if (!e.scored) return `${at}: proposals in`;
      const conv = e.convergence === undefined ? '' : `, convergence ${Math.round(e.convergence * 100)}%`;
      const leader = leaderOf(e);
      return `${at} evaluated${conv}${leader === null ? '' : `, leader ${leader}`}`;
    }
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
 * A `watch` for one tool call: sends a notification per event of the feed and a heartbeat in
 * between, with `progress` rising by one each time, until the returned stop is called. The
 * notifications go one after another, and stop resolves once the last has gone, so the tool's
 * result never overtakes the progress that came before it.
 */
export function progressReporter(
  clock: Clock,
  send: (progress: number, message: string) => Promise<void>,
): (feed: SessionFeed) => () => Promise<void> {
  return (feed) => {
    let n = 0;
    let last = 'deliberating';
    let sent = Promise.resolve();
    const notify = (message: string): void => {
      n += 1;
      last = message;
      const progress = n;
      sent = sent.then(() => send(progress, message)).catch(() => undefined);
    };
    notify(feed.jobId === null ? 'deliberation starting' : `following deliberation ${feed.jobId}`);
    const stopListening = feed.listen((s) => {
      const m = progressMessage(s.event);
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
