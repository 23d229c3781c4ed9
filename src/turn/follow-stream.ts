import type { EventStream } from '../api/client.js';
import { eofError } from '../api/stream-processor.js';
import type { StreamEvent } from '../events.js';
import { NsedError, toNsedError } from '../errors.js';
import type { TurnStart } from './build-request.js';
import { MAX_RESUME_ATTEMPTS, dropReason, isRetryableResumeError, reconnectDelayMs } from './reconnect.js';
import type { TurnDeps, TurnSpec } from './turn-spec.js';

/**
 * Reads the job's stream to its end. A drop is resumed from the job's start; the replay's first
 * `applied` events were already shown and are skipped, and the retry budget resets whenever a
 * connection made progress. The start request itself is never re-sent (docs/reliability.md #33, #31, #40).
 */
export async function followStream(
  deps: TurnDeps,
  spec: TurnSpec,
  apply: (e: StreamEvent) => void,
  currentJob: () => string | undefined,
  noteJob: (id: string) => Promise<void>,
): Promise<void> {
  const { ctx } = deps;
  let stream: EventStream = await open(deps, spec.start, noteJob);
  if (stream.jobId !== undefined) await noteJob(stream.jobId);
  let applied = 0;
  let appliedPrint = 0;
  let attempt = 0;
  let appliedAtLastDrop = -1;
  for (;;) {
    let seen = 0;
    let replayPrint = 0;
    try {
      for await (const batch of stream.batches()) {
        for (const e of batch) {
          seen += 1;
          if (seen <= applied) {
            replayPrint = fingerprint(replayPrint, e);
            // What was shown cannot be unshown: say the replay differs, never splice (docs/reliability.md #33).
            if (seen === applied && replayPrint !== appliedPrint) {
              deps.renderer.onEvent({ type: 'reconnect', attempt, reason: 'the replay differs from what was already shown; continuing from it' });
            }
            continue;
          }
          applied += 1;
          appliedPrint = fingerprint(appliedPrint, e);
          apply(e);
          if (e.type === 'end') return;
        }
      }
      if (ctx.signal.aborted) throw ctx.signal.reason;
      throw eofError();
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const e = toNsedError(err);
      const job = currentJob();
      if (e.drop === undefined || job === undefined) throw e;
      // The retry budget resets whenever the last connection made progress (docs/reliability.md #31).
      if (applied > appliedAtLastDrop) attempt = 0;
      appliedAtLastDrop = applied;
      stream = await reconnect(deps, job, e, () => ++attempt);
    }
  }
}

async function open(deps: TurnDeps, start: TurnStart, noteJob: (id: string) => Promise<void>): Promise<EventStream> {
  const { client, ctx } = deps;
  switch (start.kind) {
    case 'chat':
      return client.chatStream(start.body, { threadKey: start.threadKey, signal: ctx.signal });
    case 'submit': {
      const { job_id } = await client.submit(start.body, { signal: ctx.signal });
      await noteJob(job_id);
      return client.resume(job_id, { signal: ctx.signal });
    }
    case 'attach':
      await noteJob(start.jobId);
      return client.resume(start.jobId, { signal: ctx.signal });
    case 'result':
      throw new Error('a finished job has no stream to follow');
  }
}

async function reconnect(deps: TurnDeps, jobId: string, cause: NsedError, nextAttempt: () => number): Promise<EventStream> {
  const { ctx, client, renderer } = deps;
  let last = cause;
  for (;;) {
    const attempt = nextAttempt();
    if (attempt > MAX_RESUME_ATTEMPTS) throw last;
    renderer.onEvent({ type: 'reconnect', attempt, reason: dropReason(last) });
    await ctx.clock.sleep(reconnectDelayMs(attempt, last, Math.random), ctx.signal);
    try {
      return await client.resume(jobId, { signal: ctx.signal });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const e = toNsedError(err);
      if (e.code === 'not_found') {
        throw new NsedError('not_found', `deliberation ${jobId} is no longer known to the orchestrator`, { hint: 'its history expired; the partial answer is saved as interrupted' });
      }
      if (!isRetryableResumeError(e)) throw e;
      last = e;
    }
  }
}

/** A cheap running print of the event sequence: each event's type and size, not its text. */
function fingerprint(h: number, e: StreamEvent): number {
  const size = e.type === 'text' || e.type === 'reasoning' ? e.text.length : e.type === 'job' ? e.job_id.length : e.type === 'round' ? e.round : 0;
  return (Math.imul(h ^ (e.type.charCodeAt(0) * 64 + e.type.length), 16777619) + size) | 0;
}
