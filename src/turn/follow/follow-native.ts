import type { StreamEvent } from '../../events/events.js';
import { NsedError, toNsedError } from '../../errors.js';
import { ResumeBudget, dropReason, isRetryableResumeError, reconnectDelayMs } from './reconnect.js';
import { settlementOf } from './job-result.js';
import type { FollowDeps } from '../turn-spec.js';
import { toolCallEventOf } from '../../api/index.js';
import { historyOf } from '../../protocol/details.js';
import { readDetails } from '../ballot-sources.js';

/**
 * Follows a native job the way the reference client does: the named-event stream, which is
 * live only, plus `GET /result` to settle what the stream cannot tell. `/result` is asked once
 * the stream is open (a job that ended before the attach never says so on the stream; asking
 * only after subscribing means its end cannot slip between the two), and again whenever the
 * stream ends or drops without `job_complete`. A drop reconnects a bounded number of times.
 * A tool call made before the attach is not on the stream either: the pending calls are listed
 * once the stream is open, so none waits unseen until it expires.
 */
export async function followNative(
  deps: FollowDeps,
  jobId: string,
  applyEvent: (e: StreamEvent) => void,
): Promise<void> {
  const { ctx, client, renderer } = deps;
  // What the stream showed, so an end told by /result adds only what the stream did not.
  const seen: Seen = { rounds: new Set(), chosen: false };
  const apply = (e: StreamEvent): void => {
    if (e.type === 'round' && e.scored) seen.rounds.add(e.round);
    if (e.type === 'chosen') seen.chosen = true;
    applyEvent(e);
  };
  const budget = new ResumeBudget();
  let last: NsedError | undefined;
  for (;;) {
    if (last !== undefined) {
      const next = budget.next();
      if ('spent' in next) throw last;
      const { attempt } = next;
      renderer.onEvent({ type: 'reconnect', attempt, reason: dropReason(last) });
      await ctx.clock.sleep(reconnectDelayMs(attempt, last, Math.random), ctx.signal);
    }
    let stream;
    try {
      stream = await client.jobStream(jobId, { signal: ctx.signal });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const e = toNsedError(err);
      if (!isRetryableResumeError(e)) throw e;
      last = e;
      continue;
    }
    if (await settled(deps, jobId, apply, seen)) {
      stream.abort();
      return;
    }
    await missedCalls(deps, jobId, apply);
    try {
      for await (const batch of stream.batches()) {
        for (const e of batch) {
          // Any event proves the connection works again: the attempts in a row start over.
          budget.progressed();
          apply(e);
          if (e.type === 'end') return;
        }
      }
      throw new NsedError('network', 'the job stream ended without job_complete', { drop: 'eof' });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const e = toNsedError(err);
      if (e.drop === undefined) throw e;
      if (await settled(deps, jobId, apply, seen)) return;
      last = e;
    }
  }
}

interface Seen {
  rounds: Set<number>;
  chosen: boolean;
}

/**
 * Asks `/result`; a job that is over is finished from it (true), one still running is not
 * (false). A completed job's rounds and chosen proposal that the stream did not carry (it ended
 * before the attach, or between the attach and this answer, with its last events still unread)
 * are rebuilt from `/details`, so the verdict is what a run that stayed connected would have
 * recorded (docs/reliability.md #223).
 */
async function settled(deps: FollowDeps, jobId: string, apply: (e: StreamEvent) => void, seen: Seen): Promise<boolean> {
  const s = settlementOf(await deps.client.result(jobId, { signal: deps.ctx.signal }));
  switch (s.kind) {
    case 'completed':
      await fromHistory(deps, jobId, apply, seen);
      if (s.answer !== '') apply({ type: 'text', text: s.answer, index: 0 });
      apply({ type: 'end', finish_reason: 'stop', index: 0 });
      return true;
    case 'cancelled':
      apply({ type: 'end', finish_reason: 'cancelled', index: 0 });
      return true;
    case 'failed':
      throw new NsedError('server', `deliberation ${jobId} failed: ${s.reason}`);
    case 'running':
      return false;
  }
}

/** The rounds and the chosen proposal the stream did not show, from `/details` (none when it has no history). */
async function fromHistory(
  deps: FollowDeps,
  jobId: string,
  apply: (e: StreamEvent) => void,
  seen: Seen,
): Promise<void> {
  const history = historyOf(await readDetails(deps.client, jobId, deps.ctx.signal));
  for (const r of history?.rounds ?? []) if (!seen.rounds.has(r.round)) apply({ type: 'round', ...r, index: 0 });
  if (!seen.chosen && history?.chosen != null) apply({ type: 'chosen', ...history.chosen, index: 0 });
}

/**
 * Applies the job's pending tool calls as live calls (the turn skips ones it has seen). An
 * orchestrator without the listing leaves only the stream to tell: not an error.
 */
async function missedCalls(deps: FollowDeps, jobId: string, apply: (e: StreamEvent) => void): Promise<void> {
  let pending;
  try {
    pending = await deps.client.toolCalls(jobId, { status: 'pending', signal: deps.ctx.signal });
  } catch (err) {
    if (deps.ctx.signal.aborted) throw err;
    return;
  }
  for (const call of pending) {
    const e = toolCallEventOf('tool_call_pending', call, 0);
    if (e !== undefined) apply(e);
  }
}
