import type { JobResult } from '../protocol/wire.js';
import { statusWord } from '../protocol/job-status.js';

/**
 * What the orchestrator says became of a job, from `GET /deliberation/{id}/result`. The client
 * asks whenever a stream ended in a way the seeds do not define (a bare `[DONE]`, a finish
 * reason other than `stop` or `tool_calls`, a close without either), instead of guessing.
 */
export type Settlement =
  | { kind: 'completed'; answer: string }
  | { kind: 'failed'; reason: string }
  | { kind: 'cancelled' }
  | { kind: 'running' };

/**
 * A cancelled job ends "in a terminal failed state" on the seeds' orchestrator, so its status
 * reads `failed: cancelled…`; a server may also say `cancelled` outright.
 */
export function settlementOf(r: JobResult): Settlement {
  const word = statusWord(r.status);
  const reason = r.status.includes(':') ? r.status.slice(r.status.indexOf(':') + 1).trim() : '';
  if (word === 'completed') return { kind: 'completed', answer: r.result?.trim() ?? '' };
  if (word === 'cancelled' || word === 'canceled' || (word === 'failed' && /^cancel/i.test(reason)))
    return { kind: 'cancelled' };
  if (word === 'failed') return { kind: 'failed', reason: reason === '' ? 'no reason given' : reason };
  return { kind: 'running' };
}

/**
 * The part of the recorded answer not shown yet, when what was shown is its beginning (the
 * stream closed early); undefined when the two differ, so nothing is spliced onto other text.
 */
export function unshownRest(shown: string, answer: string): string | undefined {
  if (answer.startsWith(shown)) return answer.slice(shown.length);
  if (shown.trim() === answer) return '';
  return undefined;
}
