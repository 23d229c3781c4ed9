import type { NsedClient } from '../../api/index.js';
import { toNsedError } from '../../errors.js';
import { statusWord } from '../../protocol/job-status.js';
import type { JobResult } from '../../protocol/wire.js';
import type { TurnStart } from '../build-request.js';

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

/**
 * How a known job is followed, by whatever path found it (resume, continue's reconcile, a batch
 * item a killed run left, `watch`, an idempotency key): attached while it runs, and attached all
 * the same once it answered, whatever its path: `/resume` replays a finished job's whole history
 * (docs/protocol.md §3.12), rounds and claims included, so the rounds and verdict recorded are
 * the ones a run that stayed connected recorded (docs/reliability.md #200). Where a native job
 * has no `/resume`, its live stream says nothing of an ended job, so the follower takes the answer
 * from `/result` and the rounds from `/details` (turn/follow-native.ts, docs/reliability.md #223).
 * No job id is read for what path it took: that is the server's naming, not a contract.
 * Undefined: the job ended with no answer to follow.
 */
export function followStart(jobId: string, state: JobState): { start: TurnStart; ended: boolean } | undefined {
  if (state.kind === 'running') return { start: { kind: 'attach', jobId }, ended: false };
  if (state.kind !== 'completed' || state.answer === '') return undefined;
  return { start: { kind: 'attach', jobId }, ended: true };
}

/**
 * Why the gates of a turn rebuilt from `/result` alone are inconclusive
 * (docs/reliability.md #200): the job ended while nsed was away, and its rounds cannot be read again.
 */
export const NO_HISTORY =
  'the deliberation ended while nsed was away, and the orchestrator gave back no round history of this native job (its answer came from /result alone), so the verdict has no rounds to judge';
