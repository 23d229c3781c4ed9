import type { NsedClient } from '../api/index.js';
import { toNsedError } from '../errors.js';
import { statusWord } from '../protocol/job-status.js';
import type { JobResult } from '../protocol/wire.js';

/**
 * What the orchestrator says became of a job, from `GET /deliberation/{id}/result`. It is the one
 * reading of that answer: a stream that ended in a way docs/protocol.md does not define, a
 * pending job settled before a new turn, `resume` and `cancel` all decide from it.
 */
export type Settlement =
  | { kind: 'completed'; answer: string }
  | { kind: 'failed'; reason: string }
  | { kind: 'cancelled' }
  | { kind: 'running' };

/** A settlement, or a 404: the orchestrator no longer knows the job (history expired, restart). */
export type JobState = Settlement | { kind: 'gone' };

/**
 * A cancelled job ends "in a terminal failed state" on the reference orchestrator, so its status
 * reads `failed: cancelled…`; a server may also say `cancelled` outright. Either is cancelled.
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
 * Asks how a job stands. A 404 is `gone`; any other failure is raised, since nothing can be
 * decided while the orchestrator does not answer.
 */
export async function askJobState(client: NsedClient, jobId: string, signal?: AbortSignal): Promise<JobState> {
  try {
    return settlementOf(await client.result(jobId, signal === undefined ? {} : { signal }));
  } catch (err) {
    const e = toNsedError(err);
    if (e.code === 'not_found') return { kind: 'gone' };
    throw e;
  }
}
